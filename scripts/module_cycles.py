#!/usr/bin/env python3
"""Find import cycles between the modules of each crate in the workspace.

A module depends on another when its code names an item of the other
(`use crate::a::b`, `crate::a::f()`, `super::x`, `self::y`): the `mod`
declaration alone is not a dependency. A parent that re-exports or calls a
child depends on it; a child that names an item of its parent depends on the
parent. Any cycle among these edges is reported, and the script exits 1.

Usage: scripts/module_cycles.py [CRATE_DIR ...]   (default: every crate)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["core/src/lib.rs", "kernels/lib.rs", "backend-cpu/src/lib.rs",
          "backend-wgpu/src/lib.rs", "backend-vulkan/src/lib.rs",
          "backend-opencl/src/lib.rs", "backend-cuda/src/lib.rs",
          "src/lib.rs", "src/main.rs"]

MOD_DECL = re.compile(r'^\s*(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', re.M)
PATH_ATTR_BEFORE = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*$')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    out = []
    for line in text.splitlines():
        # drop // comments (not inside strings, approximately)
        in_str = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != '\\'):
                in_str = not in_str
            if not in_str and line.startswith('//', i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def strip_strings(text):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text, flags=re.S)


def strip_inline_modules(text):
    """Drop `mod name { ... }` blocks (tests): their `super::` is the file's
    module, and test code is not part of the module graph."""
    out, i = [], 0
    for m in re.finditer(r'\bmod\s+\w+\s*\{', text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 0, m.end() - 1
        while j < len(text):
            if text[j] == '{':
                depth += 1
            elif text[j] == '}':
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    out.append(text[i:])
    return "".join(out)


def reexports(text):
    """`pub use path::{A, B as C}` -> {visible name: source path}"""
    text = strip_strings(strip_comments(text))
    out = {}
    for m in re.finditer(r'\bpub(?:\([^)]*\))?\s+use\s+([^;]+);', text):
        for p in expand_use(m.group(1)):
            p = p.strip()
            alias = re.search(r'\s+as\s+(\w+)$', p)
            p = re.sub(r'\s+as\s+\w+$', '', p)
            name = alias.group(1) if alias else p.split("::")[-1]
            out[name] = p
    return out


def load_tree(root_file):
    """module path (tuple) -> file path"""
    modules = {(): root_file}
    stack = [((), root_file)]
    while stack:
        path, file = stack.pop()
        try:
            raw = open(file).read()
        except OSError:
            continue
        text = strip_comments(raw)
        base = os.path.dirname(file)
        is_dir_owner = os.path.basename(file) in ("mod.rs", "lib.rs", "main.rs")
        for m in MOD_DECL.finditer(text):
            custom, name = m.group(1), m.group(2)
            if custom:
                child = os.path.join(base, custom)
            else:
                sub = base if is_dir_owner else os.path.join(base, os.path.splitext(os.path.basename(file))[0])
                cand = [os.path.join(sub, name + ".rs"), os.path.join(sub, name, "mod.rs")]
                child = next((c for c in cand if os.path.exists(c)), None)
                if child is None:
                    continue
            cpath = path + (name,)
            modules[cpath] = child
            stack.append((cpath, child))
    return modules


def expand_use(tree):
    """Expand a use tree like `a::{b::C, d}` into paths."""
    tree = tree.strip()
    m = re.match(r'^(.*?)::\{(.*)\}$', tree, re.S)
    if not m:
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for c in inner:
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    out = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        if p == "self":
            out.append(prefix)
        else:
            out.extend(expand_use(prefix + "::" + p))
    return out


def references(text, children):
    """Paths starting with crate::, super::, self:: or a child module's name
    (from use trees and code)."""
    text = strip_strings(strip_comments(text))
    refs = []
    for m in re.finditer(r'\buse\s+([^;]+);', text):
        for p in expand_use(m.group(1)):
            p = re.sub(r'\s+as\s+\w+$', '', p.strip())
            refs.append(p)
    for m in re.finditer(r'(?<![\w:])((?:crate|super|self)(?:::\w+)+)(\s*!)?', text):
        if not m.group(2):  # `crate::name!(..)` is an exported macro, not a module
            refs.append(m.group(1))
    for m in re.finditer(r'(?<![\w:])(\w+)::', text):
        if m.group(1) in children:
            refs.append("self::" + m.group(1))
    return refs


def resolve(current, ref, modules, exports=None, depth=0):
    parts = ref.split("::")
    if current + (parts[0],) in modules:
        parts = ["self"] + parts
    if parts[0] == "crate":
        base, rest = (), parts[1:]
    elif parts[0] in ("super", "self"):
        base = current
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        rest = parts
    else:
        return None
    target = base
    consumed = 0
    for p in rest:
        if target + (p,) in modules:
            target = target + (p,)
            consumed += 1
        else:
            break
    # An item the target module only re-exports: depend on its source.
    if exports is not None and depth < 8 and consumed < len(rest):
        item = rest[consumed]
        source = exports.get(target, {}).get(item)
        if source is not None:
            resolved = resolve(target, source, modules, exports, depth + 1)
            if resolved is not None:
                return resolved
    return target


def cycles(modules):
    edges = {m: set() for m in modules}
    texts = {}
    for mod, file in modules.items():
        try:
            texts[mod] = strip_inline_modules(strip_strings(strip_comments(open(file).read())))
        except OSError:
            texts[mod] = ""
    exports = {mod: reexports(text) for mod, text in texts.items()}
    for mod in modules:
        text = texts[mod]
        children = {m[-1] for m in modules if len(m) == len(mod) + 1 and m[:len(mod)] == mod}
        for ref in references(text, children):
            if ref.startswith("self::") and ref.split("::")[1] in exports.get(mod, {}) and (mod + (ref.split("::")[1],)) not in modules:
                continue
            t = resolve(mod, ref, modules, exports)
            if t is None or t == mod:
                continue
            # A module's own `pub use` of a child is how it exposes it, not a
            # use of it: skip edges that only come from re-exports.
            if ref in exports.get(mod, {}).values() and not uses_outside_reexport(texts[mod], ref):
                continue
            # A reference into a descendant goes to the child on the way.
            if t[:len(mod)] == mod and len(t) > len(mod):
                t = t[:len(mod) + 1]
            edges[mod].add(t)
    found = []
    index, low, on, stack, counter = {}, {}, set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in edges:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append((comp, {m: sorted(name(t) for t in edges[m] if t in comp) for m in comp}))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            strong(v)
    return found


def uses_outside_reexport(text, ref):
    """Whether `ref`'s first segment is used in code other than `pub use`."""
    body = re.sub(r'\bpub(?:\([^)]*\))?\s+use\s+[^;]+;', '', text)
    head = ref.split("::")[0] if not ref.startswith(("crate::", "self::", "super::")) else ref.split("::")[1]
    return re.search(r'(?<![\w:])' + re.escape(head) + r'::', body) is not None


def name(mod):
    return "crate" + "".join("::" + p for p in mod)


def main():
    roots = sys.argv[1:] or [os.path.join(ROOT, c) for c in CRATES]
    bad = 0
    for root in roots:
        if os.path.isdir(root):
            cand = [os.path.join(root, "src/lib.rs"), os.path.join(root, "lib.rs")]
            root = next((c for c in cand if os.path.exists(c)), root)
        if not os.path.exists(root):
            continue
        modules = load_tree(root)
        for comp, inner in cycles(modules):
            bad += 1
            print(f"{os.path.relpath(root, ROOT)}: import cycle: " + " <-> ".join(sorted(name(m) for m in comp)))
            for m in sorted(comp):
                print(f"    {name(m)} uses {', '.join(inner[m])}")
    if bad:
        print(f"{bad} import cycle(s)")
        return 1
    print("no import cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Rust version each crate's locked dependency tree really needs.

For each workspace crate and each of its feature sets (its default, and each
optional feature on its own), walks the resolved dependency graph
(`cargo metadata`, normal and build dependencies, not dev) and takes the
highest `rust-version` any package in it declares. Checks that the crate's
declared `rust-version` is not below what its default features need, and
that every feature's need is written in the crate's
`[package.metadata.rosetta.msrv]` table (feature -> version) when it is
higher. Prints the table; exits 1 on any shortfall.

What rosetta's own code needs (e.g. `File::lock`, Rust 1.89) cannot be
computed here: each crate's declared version covers it, as its Cargo.toml
says.

Usage: scripts/msrv.py
"""
import json
import subprocess
import sys


def version_key(v):
    return tuple(int(x) for x in (v or "0").split(".")[:3]) + (0,) * (3 - len((v or "0").split(".")[:3]))


def metadata(features, all_features=False):
    cmd = ["cargo", "metadata", "--format-version", "1", "--locked", "--offline"]
    if all_features:
        cmd.append("--all-features")
    elif features:
        cmd += ["--features", ",".join(features)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        out = subprocess.run([c for c in cmd if c != "--offline"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def needed(meta, root_id, features_of_root):
    packages = {p["id"]: p for p in meta["packages"]}
    members = set(meta["workspace_members"])
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    best, why = "0", None
    seen = set()
    stack = [root_id]
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        pkg = packages[pid]
        rv = pkg.get("rust_version")
        # Workspace crates are checked on their own; their declared version
        # is what this script checks, not an input to it.
        if pid not in members and rv and version_key(rv) > version_key(best):
            best, why = rv, f"{pkg['name']} {pkg['version']}"
        for dep in nodes[pid]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds & {None, "build"}:
                stack.append(dep["pkg"])
    return best, why


def main():
    base = metadata([])
    members = [p for p in base["packages"] if p["id"] in base["workspace_members"]]
    failed = False
    print(f"{'crate':<26} {'features':<14} {'needs':<8} {'declared':<9} because of")
    for pkg in members:
        declared = pkg.get("rust_version") or "none"
        table = (pkg.get("metadata") or {}).get("rosetta", {}).get("msrv", {})
        # cargo metadata resolves features across the workspace; query per
        # feature with the feature set named for this package.
        sets = [("default", [])] + [(f, [f"{pkg['name']}/{f}"]) for f in pkg["features"] if f not in ("default",)]
        for name, feats in sets:
            meta = metadata(feats) if feats else base
            need, why = needed(meta, pkg["id"], feats)
            if name == "default":
                ok = version_key(declared) >= version_key(need)
                note = "" if ok else "  <-- declared rust-version is below what the dependencies need"
            else:
                written = table.get(name)
                ok = version_key(need) <= version_key(declared) or (written and version_key(written) >= version_key(need))
                note = "" if ok else f"  <-- needs {need}: write it in [package.metadata.rosetta.msrv]"
            failed |= not ok
            print(f"{pkg['name']:<26} {name:<14} {need:<8} {declared:<9} {why or '-'}{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

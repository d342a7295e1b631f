//! Constants folded into the GLSL before glslang (`ROSETTA_VULKAN_FOLD_CONSTANTS=1`):
//! each `layout(constant_id = N) const uint NAME = DEFAULT;` becomes
//! `const uint NAME = VALUEu;` and `layout(local_size_x_id = 0) in;`
//! becomes `layout(local_size_x = VALUE) in;`, so the SPIR-V holds plain
//! constants and one module is compiled per spec instead of one per source.
//! A diagnostic, to measure what specialization constants cost a driver's
//! code generation against constants the front end already knows (as
//! OpenCL's `-D` defines and naga's applied overrides are). A leaf module.

/// `source` with `values[N]` in place of specialization constant `N` and
/// of the workgroup size's `local_size_x_id = 0`; `Err` when a declaration
/// names a constant past `values`, or `values` has constants the source
/// does not declare.
pub(crate) fn fold(source: &str, values: &[u32]) -> Result<String, String> {
    const CONSTANT: &str = "layout(constant_id = ";
    const SIZE: &str = "layout(local_size_x_id = 0) in;";
    let mut out = String::with_capacity(source.len());
    let mut seen = vec![false; values.len()];
    for line in source.lines() {
        let body = line.trim_start();
        if let Some(rest) = body.strip_prefix(CONSTANT) {
            let (id, declaration) = rest
                .split_once(") const uint ")
                .ok_or_else(|| format!("unexpected constant declaration: {line}"))?;
            let id: usize = id
                .trim()
                .parse()
                .map_err(|_| format!("unexpected constant id: {line}"))?;
            let (name, tail) = declaration
                .split_once('=')
                .ok_or_else(|| format!("unexpected constant declaration: {line}"))?;
            let (_, comment) = tail
                .split_once(';')
                .ok_or_else(|| format!("unexpected constant declaration: {line}"))?;
            let value = values
                .get(id)
                .ok_or_else(|| format!("constant {id} has no value ({} given)", values.len()))?;
            seen[id] = true;
            out.push_str(&format!(
                "const uint {} = {value}u;{comment}\n",
                name.trim()
            ));
        } else if body.starts_with(SIZE) {
            let size = values.first().ok_or("no workgroup size value")?;
            out.push_str(&format!("layout(local_size_x = {size}) in;\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    match seen.iter().position(|s| !s) {
        Some(id) => Err(format!("the source declares no constant {id}")),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn constants_and_the_workgroup_size_become_literals() {
        let source = "#version 450\n\
            layout(constant_id = 0) const uint GROUP_SIZE = 64; // the group\n\
            layout(constant_id = 1) const uint TILE = 8;\n\
            layout(local_size_x_id = 0) in;\n\
            void main() {}\n";
        let folded = fold(source, &[256, 16]).unwrap();
        assert_eq!(
            folded,
            "#version 450\n\
             const uint GROUP_SIZE = 256u; // the group\n\
             const uint TILE = 16u;\n\
             layout(local_size_x = 256) in;\n\
             void main() {}\n"
        );
        assert!(fold(source, &[256]).is_err());
        assert!(fold(source, &[256, 16, 3]).is_err());
    }

    #[test]
    fn every_glsl_kernel_folds_and_compiles() {
        // Each kernel's declarations are in the form fold expects, and the
        // folded source is valid GLSL.
        for (name, source, defaults) in rosetta_kernels_sources() {
            // The declared defaults: values the unfolded source compiles with.
            let folded = fold(&source, &defaults).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!folded.contains("constant_id"), "{name}");
            crate::glsl::compile(&folded, false).unwrap_or_else(|log| panic!("{name}: {log}"));
        }
    }

    /// The GLSL sources of the repository's kernels with their constants'
    /// default values by id (read from the files, so this crate does not
    /// depend on the kernels crate).
    fn rosetta_kernels_sources() -> Vec<(String, String, Vec<u32>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels");
        let mut out = Vec::new();
        for op in std::fs::read_dir(&root).unwrap() {
            let op = op.unwrap().path();
            if !op.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&op).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_some_and(|e| e == "comp") {
                    let mut source = std::fs::read_to_string(&path).unwrap();
                    if !source.contains("void main(") {
                        continue; // common.comp: the part other sources follow
                    }
                    if !source.starts_with("#version") {
                        // The litmus tests: appended to their common part.
                        let common = std::fs::read_to_string(op.join("common.comp")).unwrap();
                        source = common + &source;
                    }
                    let mut defaults = Vec::new();
                    for line in source.lines() {
                        if let Some(rest) = line.trim_start().strip_prefix("layout(constant_id = ")
                        {
                            let (id, rest) = rest.split_once(')').unwrap();
                            let value = rest.split_once('=').unwrap().1;
                            let value = value.split_once(';').unwrap().0.trim();
                            let id: usize = id.trim().parse().unwrap();
                            defaults.resize(defaults.len().max(id + 1), 0);
                            defaults[id] = value.trim_end_matches('u').parse().unwrap();
                        }
                    }
                    out.push((path.display().to_string(), source, defaults));
                }
            }
        }
        assert!(out.len() >= 10, "found {} GLSL kernels", out.len());
        out
    }
}

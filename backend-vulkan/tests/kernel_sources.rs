//! Every GLSL kernel compiles with glslang, with and without the subgroup
//! preamble (no device needed).

#[test]
fn every_kernel_compiles_with_and_without_subgroups() {
    for def in rosetta_kernels::all() {
        for subgroups in [false, true] {
            let spirv = rosetta_backend_vulkan::compile_glsl(def.sources.glsl, subgroups)
                .unwrap_or_else(|log| {
                    panic!("{} (subgroups: {subgroups}) failed:\n{log}", def.name)
                });
            assert_eq!(
                spirv.first(),
                Some(&0x0723_0203),
                "{}: not SPIR-V",
                def.name
            );
        }
    }
}

#[test]
fn kernel_sources_are_ascii_and_declare_every_constant() {
    for def in rosetta_kernels::all() {
        let src = def.sources.glsl;
        assert!(src.is_ascii(), "{}: non-ASCII source", def.name);
        assert!(
            src.contains("layout(local_size_x_id = 0) in;"),
            "{}",
            def.name
        );
        for (i, name) in def.constants.iter().enumerate() {
            let decl = format!("layout(constant_id = {i}) const uint {name} =");
            assert!(src.contains(&decl), "{}: missing `{decl}`", def.name);
        }
        for i in 0..def.bindings.len() {
            assert!(
                src.contains(&format!("layout(set = 0, binding = {i})")),
                "{}: binding {i} missing",
                def.name
            );
        }
    }
}

#[test]
fn a_broken_source_returns_the_log() {
    let log =
        rosetta_backend_vulkan::compile_glsl("#version 450\nvoid main() { nope(); }\n", false)
            .expect_err("must fail");
    assert!(log.contains("nope"), "log lacks the error: {log}");
}

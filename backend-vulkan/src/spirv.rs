//! A small SPIR-V reader: enough of a module to check, before Vulkan sees it,
//! what creating its shader module and pipeline requires (the `# Safety`
//! sections of `vk::pipeline`): the version, capabilities and extensions the
//! device enables; a GLCompute entry point `main`; descriptors that are
//! storage buffers of set 0 inside the kernel's bindings; a push-constant
//! block inside the params; 32-bit specialization constants; and, for given
//! constant values, the workgroup size and workgroup memory.
//!
//! Specialization-constant expressions (`OpSpecConstantOp`) are evaluated
//! for the integer and logical operations GLSL constant expressions produce;
//! a size that depends on anything else cannot be checked and is reported as
//! such. A leaf module: it knows nothing of Vulkan handles.

use std::collections::HashMap;

const MAGIC: u32 = 0x0723_0203;
/// SPIR-V 1.3, the newest a Vulkan 1.1 device must accept.
const MAX_VERSION: u32 = 0x0001_0300;
/// How deep constant expressions may nest before evaluation gives up.
const MAX_DEPTH: u32 = 64;

mod op {
    pub const EXTENSION: u32 = 10;
    pub const ENTRY_POINT: u32 = 15;
    pub const EXECUTION_MODE: u32 = 16;
    pub const CAPABILITY: u32 = 17;
    pub const TYPE_BOOL: u32 = 20;
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_VECTOR: u32 = 23;
    pub const TYPE_MATRIX: u32 = 24;
    pub const TYPE_ARRAY: u32 = 28;
    pub const TYPE_RUNTIME_ARRAY: u32 = 29;
    pub const TYPE_STRUCT: u32 = 30;
    pub const TYPE_POINTER: u32 = 32;
    pub const CONSTANT_TRUE: u32 = 41;
    pub const CONSTANT_FALSE: u32 = 42;
    pub const CONSTANT: u32 = 43;
    pub const CONSTANT_COMPOSITE: u32 = 44;
    pub const CONSTANT_NULL: u32 = 46;
    pub const SPEC_CONSTANT_TRUE: u32 = 48;
    pub const SPEC_CONSTANT_FALSE: u32 = 49;
    pub const SPEC_CONSTANT: u32 = 50;
    pub const SPEC_CONSTANT_COMPOSITE: u32 = 51;
    pub const SPEC_CONSTANT_OP: u32 = 52;
    pub const VARIABLE: u32 = 59;
    pub const DECORATE: u32 = 71;
    pub const MEMBER_DECORATE: u32 = 72;
    pub const COMPOSITE_EXTRACT: u32 = 81;
    pub const EXECUTION_MODE_ID: u32 = 331;
}

mod decoration {
    pub const SPEC_ID: u32 = 1;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const NON_WRITABLE: u32 = 24;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const BUILT_IN: u32 = 11;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
    pub const OFFSET: u32 = 35;
}

mod class {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const OUTPUT: u32 = 3;
    pub const WORKGROUP: u32 = 4;
    pub const PRIVATE: u32 = 6;
    pub const FUNCTION: u32 = 7;
    pub const PUSH_CONSTANT: u32 = 9;
    pub const STORAGE_BUFFER: u32 = 12;
}

const GL_COMPUTE: u32 = 5;
const LOCAL_SIZE: u32 = 17;
const LOCAL_SIZE_ID: u32 = 38;
const BUILT_IN_WORKGROUP_SIZE: u32 = 25;

/// What the device lets shaders use.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Allowed {
    /// shaderInt64.
    pub int64: bool,
    /// shaderFloat64.
    pub float64: bool,
    /// shaderInt16.
    pub int16: bool,
    /// shaderBufferFloat32AtomicAdd.
    pub float_atomic_add: bool,
    /// VkSubgroupFeatureFlags supported in compute shaders (raw bits).
    pub subgroup: u32,
}

impl Allowed {
    fn capability(&self, capability: u32) -> bool {
        // VkSubgroupFeatureFlagBits in the order of the capabilities 61..=68.
        let subgroup_bit = |bit: u32| self.subgroup & bit != 0;
        match capability {
            0 | 1 => true,            // Matrix, Shader
            10 => self.float64,       // Float64
            11 => self.int64,         // Int64
            22 => self.int16,         // Int16
            61 => subgroup_bit(0x1),  // GroupNonUniform: BASIC
            62 => subgroup_bit(0x2),  // Vote
            63 => subgroup_bit(0x4),  // Arithmetic
            64 => subgroup_bit(0x8),  // Ballot
            65 => subgroup_bit(0x10), // Shuffle
            66 => subgroup_bit(0x20), // ShuffleRelative
            67 => subgroup_bit(0x40), // Clustered
            68 => subgroup_bit(0x80), // Quad
            6033 => self.float_atomic_add,
            _ => false,
        }
    }

    fn extension(&self, name: &str) -> bool {
        match name {
            "SPV_KHR_storage_buffer_storage_class" => true,
            "SPV_EXT_shader_atomic_float_add" => self.float_atomic_add,
            _ => false,
        }
    }
}

/// What the kernel's interface declares (its `KernelDef`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Interface {
    /// Storage buffers at bindings `0..bindings` of set 0.
    pub bindings: u32,
    /// Bit `b` set: binding `b` is read-only, so the shader must declare it
    /// `readonly` (NonWritable).
    pub read_only: u64,
    /// Bytes of push constants (4 per param).
    pub push_bytes: u32,
    /// Specialization constants `0..constants`.
    pub constants: u32,
}

#[derive(Debug, Clone)]
enum Type {
    Bool,
    Int { width: u32 },
    Float { width: u32 },
    Vector { component: u32, count: u32 },
    Matrix { column: u32, count: u32 },
    Array { element: u32, length: u32 },
    RuntimeArray,
    Struct { members: Vec<u32> },
    Pointer { pointee: u32 },
}

#[derive(Debug, Clone)]
enum Constant {
    /// A literal (or null) value of a scalar type.
    Value(u64),
    /// `OpSpecConstant*` with its default.
    Spec { default: u64, boolean: bool },
    /// A composite of constants.
    Composite(Vec<u32>),
    /// `OpSpecConstantOp`: opcode, operand ids (or literals for extracts).
    Operation { opcode: u32, operands: Vec<u32> },
}

#[derive(Debug, Clone)]
struct Variable {
    id: u32,
    pointer: u32,
    class: u32,
}

/// Why [`Module::check`] refused a module.
#[derive(Debug)]
pub(crate) enum Rejected {
    /// The module needs what this device does not enable (a SPIR-V version,
    /// capability or extension): a build failure, with glslang's output.
    Module(String),
    /// The shader's interface is not the kernel's (its entry point, buffers,
    /// push block or constants): the caller's mistake, refused as such.
    Interface(String),
}

impl Rejected {
    /// The explanation.
    pub(crate) fn text(&self) -> &str {
        match self {
            Rejected::Module(text) | Rejected::Interface(text) => text,
        }
    }
}

/// A parsed module (only what the checks need).
#[derive(Debug, Default)]
pub(crate) struct Module {
    version: u32,
    capabilities: Vec<u32>,
    extensions: Vec<String>,
    /// `(execution model, function id, name)`.
    entry_points: Vec<(u32, u32, String)>,
    /// `(entry, mode, operands)` of OpExecutionMode and OpExecutionModeId.
    modes: Vec<(u32, u32, Vec<u32>, bool)>,
    decorations: HashMap<u32, Vec<(u32, Vec<u32>)>>,
    offsets: HashMap<(u32, u32), u32>,
    /// `(struct, member)` pairs decorated NonWritable.
    non_writable_members: std::collections::HashSet<(u32, u32)>,
    types: HashMap<u32, Type>,
    /// Result type of each constant.
    constant_types: HashMap<u32, u32>,
    constants: HashMap<u32, Constant>,
    variables: Vec<Variable>,
}

/// `n` rounded up to a multiple of `align` (1 for 0), `None` on overflow.
fn round_up(n: u64, align: u64) -> Option<u64> {
    let align = align.max(1);
    n.div_ceil(align).checked_mul(align)
}

/// A literal string operand: NUL-terminated UTF-8 packed little-endian.
fn string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, word) in words.iter().enumerate() {
        for b in word.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

impl Module {
    /// Parse `words`; `Err` says why it is not a module this reader accepts.
    pub(crate) fn parse(words: &[u32]) -> Result<Self, String> {
        if words.len() < 5 || words[0] != MAGIC {
            return Err("not a SPIR-V module (bad magic number or too short)".into());
        }
        let mut module = Module {
            version: words[1],
            ..Module::default()
        };
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            let opcode = words[at] & 0xffff;
            if count == 0 || at + count > words.len() {
                return Err(format!("malformed instruction at word {at}"));
            }
            let operands = &words[at + 1..at + count];
            module.instruction(opcode, operands)?;
            at += count;
        }
        Ok(module)
    }

    fn instruction(&mut self, opcode: u32, w: &[u32]) -> Result<(), String> {
        let need = |n: usize| {
            if w.len() >= n {
                Ok(())
            } else {
                Err(format!("opcode {opcode} with {} operands", w.len()))
            }
        };
        match opcode {
            op::CAPABILITY => {
                need(1)?;
                self.capabilities.push(w[0]);
            }
            op::EXTENSION => self.extensions.push(string(w).0),
            op::ENTRY_POINT => {
                need(3)?;
                self.entry_points.push((w[0], w[1], string(&w[2..]).0));
            }
            op::EXECUTION_MODE | op::EXECUTION_MODE_ID => {
                need(2)?;
                self.modes
                    .push((w[0], w[1], w[2..].to_vec(), opcode == op::EXECUTION_MODE_ID));
            }
            op::DECORATE => {
                need(2)?;
                self.decorations
                    .entry(w[0])
                    .or_default()
                    .push((w[1], w[2..].to_vec()));
            }
            op::MEMBER_DECORATE => {
                need(3)?;
                if w[2] == decoration::OFFSET {
                    need(4)?;
                    self.offsets.insert((w[0], w[1]), w[3]);
                }
                if w[2] == decoration::NON_WRITABLE {
                    self.non_writable_members.insert((w[0], w[1]));
                }
            }
            op::TYPE_BOOL => {
                need(1)?;
                self.types.insert(w[0], Type::Bool);
            }
            op::TYPE_INT => {
                need(2)?;
                self.types.insert(w[0], Type::Int { width: w[1] });
            }
            op::TYPE_FLOAT => {
                need(2)?;
                self.types.insert(w[0], Type::Float { width: w[1] });
            }
            op::TYPE_VECTOR => {
                need(3)?;
                let t = Type::Vector {
                    component: w[1],
                    count: w[2],
                };
                self.types.insert(w[0], t);
            }
            op::TYPE_MATRIX => {
                need(3)?;
                let t = Type::Matrix {
                    column: w[1],
                    count: w[2],
                };
                self.types.insert(w[0], t);
            }
            op::TYPE_ARRAY => {
                need(3)?;
                let t = Type::Array {
                    element: w[1],
                    length: w[2],
                };
                self.types.insert(w[0], t);
            }
            op::TYPE_RUNTIME_ARRAY => {
                need(2)?;
                self.types.insert(w[0], Type::RuntimeArray);
            }
            op::TYPE_STRUCT => {
                need(1)?;
                let t = Type::Struct {
                    members: w[1..].to_vec(),
                };
                self.types.insert(w[0], t);
            }
            op::TYPE_POINTER => {
                need(3)?;
                self.types.insert(w[0], Type::Pointer { pointee: w[2] });
            }
            op::CONSTANT_TRUE | op::CONSTANT_FALSE => {
                need(2)?;
                self.constant(w, Constant::Value(u64::from(opcode == op::CONSTANT_TRUE)));
            }
            op::CONSTANT => {
                need(3)?;
                let value = u64::from(w[2]) | w.get(3).map_or(0, |&h| u64::from(h) << 32);
                self.constant(w, Constant::Value(value));
            }
            op::CONSTANT_NULL => {
                need(2)?;
                self.constant(w, Constant::Value(0));
            }
            op::CONSTANT_COMPOSITE | op::SPEC_CONSTANT_COMPOSITE => {
                need(2)?;
                self.constant(w, Constant::Composite(w[2..].to_vec()));
            }
            op::SPEC_CONSTANT_TRUE | op::SPEC_CONSTANT_FALSE => {
                need(2)?;
                let default = u64::from(opcode == op::SPEC_CONSTANT_TRUE);
                self.constant(
                    w,
                    Constant::Spec {
                        default,
                        boolean: true,
                    },
                );
            }
            op::SPEC_CONSTANT => {
                need(3)?;
                let default = u64::from(w[2]) | w.get(3).map_or(0, |&h| u64::from(h) << 32);
                self.constant(
                    w,
                    Constant::Spec {
                        default,
                        boolean: false,
                    },
                );
            }
            op::SPEC_CONSTANT_OP => {
                need(3)?;
                let operation = Constant::Operation {
                    opcode: w[2],
                    operands: w[3..].to_vec(),
                };
                self.constant(w, operation);
            }
            op::VARIABLE => {
                need(3)?;
                self.variables.push(Variable {
                    id: w[1],
                    pointer: w[0],
                    class: w[2],
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn constant(&mut self, w: &[u32], constant: Constant) {
        self.constant_types.insert(w[1], w[0]);
        self.constants.insert(w[1], constant);
    }

    fn decoration(&self, id: u32, which: u32) -> Option<&[u32]> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(d, _)| *d == which)
            .map(|(_, literals)| literals.as_slice())
    }

    fn decoration_value(&self, id: u32, which: u32) -> Option<u32> {
        self.decoration(id, which).and_then(|l| l.first().copied())
    }

    /// The function id of entry point `main` (GLCompute).
    fn main(&self) -> Result<u32, String> {
        self.entry_points
            .iter()
            .find(|(model, _, name)| *model == GL_COMPUTE && name == "main")
            .map(|(_, id, _)| *id)
            .ok_or_else(|| "no GLCompute entry point named `main`".into())
    }

    /// Check the module against what the device allows and the kernel's
    /// interface. `Err` explains the first problem found.
    pub(crate) fn check(&self, allowed: &Allowed, interface: &Interface) -> Result<(), Rejected> {
        self.check_module(allowed).map_err(Rejected::Module)?;
        self.check_interface(interface).map_err(Rejected::Interface)
    }

    /// What the device must enable for the module.
    fn check_module(&self, allowed: &Allowed) -> Result<(), String> {
        if self.version > MAX_VERSION {
            return Err(format!(
                "SPIR-V version {}.{} is newer than 1.3",
                (self.version >> 16) & 0xff,
                (self.version >> 8) & 0xff
            ));
        }
        if let Some(c) = self.capabilities.iter().find(|&&c| !allowed.capability(c)) {
            return Err(format!(
                "the shader needs SPIR-V capability {c}, which this device does not enable"
            ));
        }
        if let Some(e) = self.extensions.iter().find(|e| !allowed.extension(e)) {
            return Err(format!(
                "the shader needs SPIR-V extension {e}, which this device does not enable"
            ));
        }
        Ok(())
    }

    /// The module against the kernel's interface: its entry point, buffers,
    /// push block and specialization constants.
    fn check_interface(&self, interface: &Interface) -> Result<(), String> {
        self.main()?;
        let mut push_blocks = 0;
        for var in &self.variables {
            let pointee = match self.types.get(&var.pointer) {
                Some(Type::Pointer { pointee }) => *pointee,
                _ => return Err(format!("variable %{} has no pointer type", var.id)),
            };
            match var.class {
                class::STORAGE_BUFFER | class::UNIFORM => {
                    self.check_buffer(var, pointee, interface)?;
                }
                class::PUSH_CONSTANT => {
                    push_blocks += 1;
                    let extent = self.push_extent(pointee)?;
                    if push_blocks > 1 || extent > u64::from(interface.push_bytes) {
                        return Err(format!(
                            "the push-constant block uses {extent} bytes; the kernel declares {} \
                             params ({} bytes)",
                            interface.push_bytes / 4,
                            interface.push_bytes
                        ));
                    }
                }
                class::UNIFORM_CONSTANT => {
                    return Err(
                        "images, samplers and other opaque uniforms are not supported \
                         (bind data as storage buffers)"
                            .into(),
                    );
                }
                class::INPUT
                | class::OUTPUT
                | class::WORKGROUP
                | class::PRIVATE
                | class::FUNCTION => {}
                other => {
                    return Err(format!(
                        "variable %{} is in storage class {other}, which is not supported",
                        var.id
                    ))
                }
            }
        }
        // The constant ids the module declares (each checked below).
        let mut declared = std::collections::HashSet::new();
        for (&id, constant) in &self.constants {
            if let Constant::Spec { boolean, .. } = constant {
                let Some(spec_id) = self.decoration_value(id, decoration::SPEC_ID) else {
                    continue;
                };
                declared.insert(spec_id);
                // An id no value is given for would keep the source's
                // default silently, whatever the caller set.
                if spec_id >= interface.constants {
                    return Err(format!(
                        "specialization constant {spec_id} is none of the kernel's: its \
                         constant_ids are 0 (GROUP_SIZE) to {} (its constants in order)",
                        interface.constants.saturating_sub(1)
                    ));
                }
                if *boolean {
                    continue;
                }
                // Constants are 32-bit words: a float one would take the
                // word's bits (3 as 4.2e-45), where WGSL, CUDA and OpenCL C
                // convert the value.
                let ty = self.constant_types.get(&id).and_then(|t| self.types.get(t));
                if !matches!(ty, Some(Type::Int { width: 32 })) {
                    return Err(format!(
                        "specialization constant {spec_id} is not a 32-bit integer (rosetta's \
                         constants are uint words: declare it `uint` or `int` and convert)"
                    ));
                }
            }
        }
        // Every constant given a value has its id in the module: one that
        // has none would be ignored, whatever the caller set (the ids past
        // the kernel's are refused above).
        if let Some(missing) = (1..interface.constants).find(|i| !declared.contains(i)) {
            return Err(format!(
                "the kernel's constant {missing} (the def's constants take constant_id 1, 2, \
                 ... in order) is not declared in the source (`layout(constant_id = \
                 {missing}) const uint NAME = DEFAULT;`): its value would be ignored"
            ));
        }
        Ok(())
    }

    fn check_buffer(
        &self,
        var: &Variable,
        pointee: u32,
        interface: &Interface,
    ) -> Result<(), String> {
        match self.types.get(&pointee) {
            Some(Type::Struct { .. }) => {}
            Some(Type::Array { .. } | Type::RuntimeArray) => {
                return Err(format!(
                    "variable %{} is an array of buffers, which is not supported",
                    var.id
                ))
            }
            _ => return Err(format!("buffer variable %{} is not a block", var.id)),
        }
        if var.class == class::UNIFORM
            && self.decoration(pointee, decoration::BUFFER_BLOCK).is_none()
        {
            return Err(
                "uniform buffers are not supported (declare every buffer as a storage `buffer`)"
                    .into(),
            );
        }
        let set = self.decoration_value(var.id, decoration::DESCRIPTOR_SET);
        let binding = self.decoration_value(var.id, decoration::BINDING);
        match (set, binding) {
            (Some(0), Some(b)) if b < interface.bindings => {
                // A read-only binding the shader may write would break the
                // interface (and the aliasing of read-only bindings).
                let read_only = b < 64 && interface.read_only & (1u64 << b) != 0;
                let members = match self.types.get(&pointee) {
                    Some(Type::Struct { members }) => members.len() as u32,
                    _ => 0,
                };
                let non_writable = self.decoration(var.id, decoration::NON_WRITABLE).is_some()
                    || (0..members).all(|m| self.non_writable_members.contains(&(pointee, m)));
                if read_only && !non_writable {
                    return Err(format!(
                        "binding {b} is read-only in the kernel's interface, but the shader may \
                         write it: declare its buffer `readonly`"
                    ));
                }
                Ok(())
            }
            (Some(s), Some(b)) => Err(format!(
                "a buffer at set {s}, binding {b}: the kernel declares {} bindings in set 0",
                interface.bindings
            )),
            _ => Err(format!("buffer variable %{} has no set/binding", var.id)),
        }
    }

    /// The furthest byte a push-constant block reaches.
    fn push_extent(&self, block: u32) -> Result<u64, String> {
        let ends = self
            .member_ends(block, &[])
            .ok_or("the push-constant variable is not a block")?;
        let mut extent = 0u64;
        for end in ends {
            extent = extent.max(end.map_err(|why| format!("a push-constant member{why}"))?);
        }
        Ok(extent)
    }

    /// Where each member of the struct `block` ends — its offset plus its
    /// size for these specialization values, a runtime array at its offset —
    /// or why that is unknown (words that follow "a member"); `None` where
    /// `block` is not a struct.
    fn member_ends(&self, block: u32, values: &[u32]) -> Option<Vec<Result<u64, &'static str>>> {
        let Some(Type::Struct { members }) = self.types.get(&block) else {
            return None;
        };
        let end = |(i, &member): (usize, &u32)| {
            let offset = self
                .offsets
                .get(&(block, i as u32))
                .copied()
                .ok_or(" has no offset")?;
            let size = match self.types.get(&member) {
                Some(Type::RuntimeArray) => 0,
                _ => {
                    self.layout(member, values, 0)
                        .ok_or("'s size is unknown")?
                        .0
                }
            };
            u64::from(offset)
                .checked_add(size)
                .ok_or("'s end overflows")
        };
        Some(members.iter().enumerate().map(end).collect())
    }

    /// Size and alignment of type `ty` (with `values` for specialization
    /// constants), rounding up like std430 and counting `vec3` as 16 bytes.
    fn layout(&self, ty: u32, values: &[u32], depth: u32) -> Option<(u64, u64)> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.types.get(&ty)? {
            Type::Bool => (4, 4),
            Type::Int { width } | Type::Float { width } => {
                let bytes = u64::from(*width).div_ceil(8).max(1);
                (bytes, bytes)
            }
            Type::Vector { component, count } => {
                let (c, _) = self.layout(*component, values, depth + 1)?;
                let lanes = if *count == 3 { 4 } else { u64::from(*count) };
                (c.checked_mul(u64::from(*count))?, c.checked_mul(lanes)?)
            }
            Type::Matrix { column, count } => {
                let (size, align) = self.layout(*column, values, depth + 1)?;
                (
                    round_up(size, align)?.checked_mul(u64::from(*count))?,
                    align,
                )
            }
            Type::Array { element, length } => {
                let (size, align) = self.layout(*element, values, depth + 1)?;
                let stride = match self.decoration_value(ty, decoration::ARRAY_STRIDE) {
                    Some(stride) => u64::from(stride),
                    None => round_up(size, align)?,
                };
                let length = self.scalar(*length, values, depth + 1)?;
                (stride.checked_mul(length)?, align)
            }
            Type::Struct { members } => {
                let (mut end, mut align) = (0u64, 1u64);
                for (i, &member) in members.iter().enumerate() {
                    let (size, a) = self.layout(member, values, depth + 1)?;
                    let offset = match self.offsets.get(&(ty, i as u32)) {
                        Some(&offset) => u64::from(offset),
                        None => round_up(end, a)?,
                    };
                    end = end.max(offset.checked_add(size)?);
                    align = align.max(a);
                }
                (round_up(end, align)?, align)
            }
            Type::RuntimeArray | Type::Pointer { .. } => return None,
        })
    }

    /// The value of scalar constant `id` for these specialization values.
    fn scalar(&self, id: u32, values: &[u32], depth: u32) -> Option<u64> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.constants.get(&id)? {
            Constant::Value(v) => Some(*v),
            Constant::Spec { default, boolean } => {
                let given = self
                    .decoration_value(id, decoration::SPEC_ID)
                    .and_then(|s| values.get(s as usize).copied());
                Some(match (given, boolean) {
                    (Some(v), true) => u64::from(v != 0),
                    (Some(v), false) => u64::from(v),
                    (None, _) => *default,
                })
            }
            Constant::Composite(_) => None,
            Constant::Operation { opcode, operands } => {
                self.operation(id, *opcode, operands, values, depth + 1)
            }
        }
    }

    /// The components of composite constant `id`.
    fn components(&self, id: u32) -> Option<&[u32]> {
        match self.constants.get(&id)? {
            Constant::Composite(parts) => Some(parts),
            _ => None,
        }
    }

    /// Evaluate an `OpSpecConstantOp` on 32-bit integers and booleans.
    fn operation(
        &self,
        id: u32,
        opcode: u32,
        operands: &[u32],
        values: &[u32],
        depth: u32,
    ) -> Option<u64> {
        if opcode == op::COMPOSITE_EXTRACT {
            let (&composite, indices) = operands.split_first()?;
            let (&index, []) = indices.split_first()? else {
                return None;
            };
            let part = *self.components(composite)?.get(index as usize)?;
            return self.scalar(part, values, depth);
        }
        let ty = self.types.get(self.constant_types.get(&id)?)?;
        match ty {
            Type::Bool | Type::Int { width: 32 } => {}
            _ => return None,
        }
        let arg = |i: usize| -> Option<u32> {
            let v = self.scalar(*operands.get(i)?, values, depth)?;
            Some(v as u32)
        };
        let bool = |b: bool| Some(u64::from(b));
        let (a, b) = (arg(0), arg(1));
        let signed = |v: u32| v as i32;
        match opcode {
            113 | 114 => a.map(u64::from),                 // UConvert, SConvert
            126 => a.map(|a| u64::from(a.wrapping_neg())), // SNegate
            200 | 168 => {
                // Not, LogicalNot
                let a = a?;
                if opcode == 168 {
                    return bool(a == 0);
                }
                Some(u64::from(!a))
            }
            128 => Some(u64::from(a?.wrapping_add(b?))), // IAdd
            130 => Some(u64::from(a?.wrapping_sub(b?))), // ISub
            132 => Some(u64::from(a?.wrapping_mul(b?))), // IMul
            134 => Some(u64::from(a?.checked_div(b?)?)), // UDiv
            135 => Some(u64::from(signed(a?).checked_div(signed(b?))? as u32)), // SDiv
            137 => Some(u64::from(a?.checked_rem(b?)?)), // UMod
            138 => Some(u64::from(signed(a?).checked_rem(signed(b?))? as u32)), // SRem
            139 => {
                // SMod: the sign of the divisor.
                let (a, b) = (signed(a?), signed(b?));
                let r = a.checked_rem(b)?;
                let m = if r != 0 && ((r < 0) != (b < 0)) {
                    r + b
                } else {
                    r
                };
                Some(u64::from(m as u32))
            }
            194 => Some(u64::from(a?.checked_shr(b?)?)), // ShiftRightLogical
            195 => Some(u64::from(signed(a?).checked_shr(b?)? as u32)), // ShiftRightArithmetic
            196 => Some(u64::from(a?.checked_shl(b?)?)), // ShiftLeftLogical
            197 => Some(u64::from(a? | b?)),             // BitwiseOr
            198 => Some(u64::from(a? ^ b?)),             // BitwiseXor
            199 => Some(u64::from(a? & b?)),             // BitwiseAnd
            166 => bool(a? != 0 || b? != 0),             // LogicalOr
            167 => bool(a? != 0 && b? != 0),             // LogicalAnd
            164 | 170 => bool(a? == b?),                 // LogicalEqual, IEqual
            165 | 171 => bool(a? != b?),                 // LogicalNotEqual, INotEqual
            172 => bool(a? > b?),                        // UGreaterThan
            173 => bool(signed(a?) > signed(b?)),        // SGreaterThan
            174 => bool(a? >= b?),                       // UGreaterThanEqual
            175 => bool(signed(a?) >= signed(b?)),       // SGreaterThanEqual
            176 => bool(a? < b?),                        // ULessThan
            177 => bool(signed(a?) < signed(b?)),        // SLessThan
            178 => bool(a? <= b?),                       // ULessThanEqual
            179 => bool(signed(a?) <= signed(b?)),       // SLessThanEqual
            169 => {
                // Select: condition, then, else.
                let chosen = if a? != 0 { b? } else { arg(2)? };
                Some(u64::from(chosen))
            }
            _ => None,
        }
    }

    /// The workgroup size of `main` for these specialization values.
    pub(crate) fn workgroup_size(&self, values: &[u32]) -> Result<[u32; 3], String> {
        let main = self.main()?;
        let unknown = || "the workgroup size cannot be evaluated".to_string();
        let three = |ids: &[u32], literal: bool| -> Result<[u32; 3], String> {
            if ids.len() != 3 {
                return Err(unknown());
            }
            let mut size = [0u32; 3];
            for (out, &id) in size.iter_mut().zip(ids) {
                let v = if literal {
                    u64::from(id)
                } else {
                    self.scalar(id, values, 0).ok_or_else(unknown)?
                };
                *out = u32::try_from(v).map_err(|_| unknown())?;
            }
            Ok(size)
        };
        // A WorkgroupSize built-in overrides the execution modes.
        let built_in = self.constants.keys().find(|&&id| {
            self.decoration_value(id, decoration::BUILT_IN) == Some(BUILT_IN_WORKGROUP_SIZE)
        });
        if let Some(&id) = built_in {
            return three(self.components(id).ok_or_else(unknown)?, false);
        }
        for (entry, mode, operands, by_id) in &self.modes {
            if *entry != main {
                continue;
            }
            match (*mode, *by_id) {
                (LOCAL_SIZE_ID, true) => return three(operands, false),
                (LOCAL_SIZE, false) => return three(operands, true),
                _ => {}
            }
        }
        Err("the entry point declares no workgroup size".into())
    }

    /// Bytes of workgroup memory the module declares, for these values.
    pub(crate) fn workgroup_bytes(&self, values: &[u32]) -> Result<u64, String> {
        let mut total = 0u64;
        for var in self
            .variables
            .iter()
            .filter(|v| v.class == class::WORKGROUP)
        {
            let Some(Type::Pointer { pointee }) = self.types.get(&var.pointer) else {
                return Err(format!("variable %{} has no pointer type", var.id));
            };
            let (size, align) = self.layout(*pointee, values, 0).ok_or_else(|| {
                format!(
                    "the size of workgroup variable %{} cannot be evaluated",
                    var.id
                )
            })?;
            total = total
                .checked_add(round_up(size, align).ok_or("workgroup memory size overflows")?)
                .ok_or("workgroup memory size overflows")?;
        }
        Ok(total)
    }

    /// The least bytes the buffer of each binding below `bindings` (set 0)
    /// must hold for these specialization values: the end of its block's
    /// furthest fixed-size member, a runtime array counting from its offset
    /// with no element; the largest over the variables that share a binding
    /// (0 where nothing is known). Vulkan does not check a bound range
    /// against the block, so a smaller buffer would be read past its end.
    pub(crate) fn binding_min_bytes(&self, bindings: u32, values: &[u32]) -> Vec<u64> {
        let mut least = vec![0u64; bindings as usize];
        for var in &self.variables {
            if var.class != class::STORAGE_BUFFER && var.class != class::UNIFORM {
                continue;
            }
            let (Some(0), Some(binding)) = (
                self.decoration_value(var.id, decoration::DESCRIPTOR_SET),
                self.decoration_value(var.id, decoration::BINDING),
            ) else {
                continue;
            };
            let Some(slot) = least.get_mut(binding as usize) else {
                continue;
            };
            let Some(Type::Pointer { pointee }) = self.types.get(&var.pointer) else {
                continue;
            };
            // Members whose end is unknown count for nothing.
            if let Some(ends) = self.member_ends(*pointee, values) {
                *slot = ends.into_iter().flatten().fold(*slot, u64::max);
            }
        }
        least
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(source: &str) -> Module {
        let spirv = crate::glsl::compile(source, false).unwrap_or_else(|log| panic!("{log}"));
        Module::parse(&spirv).unwrap()
    }

    const HEADER: &str = "#version 450\n\
        layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
        layout(constant_id = 1) const uint ITEMS = 2;\n\
        layout(local_size_x_id = 0) in;\n";

    fn interface(bindings: u32, params: u32) -> Interface {
        Interface {
            bindings,
            read_only: 0,
            push_bytes: params * 4,
            constants: 2,
        }
    }

    #[test]
    fn interfaces_and_sizes_are_read() {
        let m = compile(&format!(
            "{HEADER}\
             layout(set = 0, binding = 0) buffer A {{ uint a[]; }};\n\
             layout(set = 0, binding = 1) readonly buffer B {{ uint b[]; }};\n\
             layout(push_constant) uniform P {{ uint n; uint add; }} p;\n\
             shared uint s[GROUP_SIZE * ITEMS + 3u];\n\
             shared vec4 t[(GROUP_SIZE + 3u) / 4u];\n\
             void main() {{ s[gl_LocalInvocationID.x] = b[0] + p.n; barrier();\n\
             t[0] = vec4(1.0); a[0] = s[1] + uint(t[0].x) + p.add; }}\n"
        ));
        let allowed = Allowed::default();
        m.check(&allowed, &interface(2, 2)).unwrap();
        assert!(m
            .check(&allowed, &interface(1, 2))
            .unwrap_err()
            .text()
            .contains("binding 1"));
        assert!(m
            .check(&allowed, &interface(2, 1))
            .unwrap_err()
            .text()
            .contains("push"));
        // Binding 1 is `readonly`, binding 0 is not.
        let read_only = |mask| Interface {
            read_only: mask,
            ..interface(2, 2)
        };
        m.check(&allowed, &read_only(0b10)).unwrap();
        assert!(m
            .check(&allowed, &read_only(0b01))
            .unwrap_err()
            .text()
            .contains("binding 0 is read-only"));
        assert_eq!(m.workgroup_size(&[128, 4]).unwrap(), [128, 1, 1]);
        // Unspecialised, local_size_x_id takes local_size_x's default (1).
        assert_eq!(m.workgroup_size(&[]).unwrap(), [1, 1, 1]);
        // (128·4 + 3) words + (131/4 = 32) vec4s.
        assert_eq!(m.workgroup_bytes(&[128, 4]).unwrap(), 515 * 4 + 32 * 16);
    }

    #[test]
    fn float_constants_are_refused() {
        let m = compile(
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(constant_id = 1) const float SCALE = 1.0;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) buffer A { float a[]; };\n\
             void main() { a[0] = SCALE; }\n",
        );
        assert!(m
            .check(&Allowed::default(), &interface(1, 0))
            .unwrap_err()
            .text()
            .contains("not a 32-bit integer"));
    }

    /// A constant_id past the kernel's constants gets no value: refused,
    /// where it used to keep the source's default whatever was set (uint,
    /// int and bool alike).
    #[test]
    fn constants_without_a_value_are_refused() {
        for ty in ["uint", "int", "bool"] {
            let value = if ty == "bool" { "false" } else { "0" };
            let m = compile(&format!(
                "{HEADER}layout(constant_id = 7) const {ty} C = {value};\n\
                 layout(set = 0, binding = 0) buffer A {{ uint a[]; }};\n\
                 void main() {{ a[0] = uint(C) + ITEMS; }}\n"
            ));
            let rejected = m.check(&Allowed::default(), &interface(1, 0)).unwrap_err();
            let why = rejected.text();
            assert!(
                why.contains("specialization constant 7 is none of the kernel's")
                    && why.contains("0 (GROUP_SIZE) to 1"),
                "{ty}: {why}"
            );
            // With eight constants it is the last one's, but ids 2 to 6
            // have no declaration: refused for that.
            let eight = Interface {
                constants: 8,
                ..interface(1, 0)
            };
            let rejected = m.check(&Allowed::default(), &eight).unwrap_err();
            let why = rejected.text();
            assert!(
                why.contains("constant 2 ") && why.contains("ignored"),
                "{ty}: {why}"
            );
        }
        // A constant declared but not used keeps its declaration (glslang
        // emits every spec constant): accepted.
        let unused = compile(&format!(
            "{HEADER}layout(set = 0, binding = 0) buffer A {{ uint a[]; }};\n\
             void main() {{ a[0] = 1u; }}\n"
        ));
        unused.check(&Allowed::default(), &interface(1, 0)).unwrap();
    }

    #[test]
    fn unsupported_interfaces_are_refused() {
        let ubo = compile(&format!(
            "{HEADER}layout(set = 0, binding = 0) uniform U {{ uint u; }};\n\
             layout(set = 0, binding = 1) buffer A {{ uint a[]; }};\n\
             void main() {{ a[0] = u; }}\n"
        ));
        let rejected = ubo.check(&Allowed::default(), &interface(2, 0));
        assert!(
            matches!(&rejected, Err(Rejected::Interface(why)) if why.contains("uniform buffers")),
            "{rejected:?}"
        );
        let set1 = compile(&format!(
            "{HEADER}layout(set = 1, binding = 0) buffer A {{ uint a[]; }};\n\
             void main() {{ a[0] = 1u; }}\n"
        ));
        assert!(matches!(
            set1.check(&Allowed::default(), &interface(1, 0)),
            Err(Rejected::Interface(_))
        ));
        let int64 = compile(&format!(
            "{HEADER}#extension GL_ARB_gpu_shader_int64 : require\n\
             layout(set = 0, binding = 0) buffer A {{ uint64_t a[]; }};\n\
             void main() {{ a[0] = 1ul; }}\n"
        ));
        // What the device lacks is the module's, not the interface's.
        let rejected = int64.check(&Allowed::default(), &interface(1, 0));
        assert!(
            matches!(&rejected, Err(Rejected::Module(why)) if why.contains("capability 11")),
            "{rejected:?}"
        );
        let allowed = Allowed {
            int64: true,
            ..Allowed::default()
        };
        int64.check(&allowed, &interface(1, 0)).unwrap();
    }

    #[test]
    fn garbage_is_not_a_module() {
        assert!(Module::parse(&[1, 2, 3]).is_err());
        assert!(Module::parse(&[MAGIC, 0x10300, 0, 10, 0, 0xffff_0011]).is_err());
    }
}

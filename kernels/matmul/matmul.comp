#version 450
// Matmul -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_a (TILE_K rows of TILE_M + PAD, A's tile transposed),
// then shared_b (TILE_K rows of TILE_N + PAD) -- shared arrays sized by
// specialization constants (static; mod.rs's single dynamic block is the
// CUDA/OpenCL form of the same layout).
// Barriers: after each pair of tile loads, and after computing from them.
// Registers: each invocation's THREAD_M x THREAD_N accumulators live in
// `acc`, a private array sized by specialization constants; every loop over
// it runs to THREAD_M / THREAD_N, constants once the pipeline is built, so
// the loops unroll and the arrays become registers.

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 64; // (TILE_M / THREAD_M) * (TILE_N / THREAD_N)
layout(constant_id = 1) const uint TILE_M = 16;
layout(constant_id = 2) const uint TILE_N = 16;
layout(constant_id = 3) const uint TILE_K = 8;
layout(constant_id = 4) const uint THREAD_M = 2;
layout(constant_id = 5) const uint THREAD_N = 2;
layout(local_size_x_id = 0) in;

const uint PAD = 4u;

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Params {
    uint m;
    uint n;
    uint k;
} params;

shared float shared_a[TILE_K * (TILE_M + PAD)];
shared float shared_b[TILE_K * (TILE_N + PAD)];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint m = params.m;
    uint n = params.n;
    uint k = params.k;
    uint stride_a = TILE_M + PAD;
    uint stride_b = TILE_N + PAD;
    uint threads_n = TILE_N / THREAD_N;
    uint tx = lid % threads_n;
    uint ty = lid / threads_n;
    uint tiles_m = (m + TILE_M - 1u) / TILE_M;
    uint tiles_n = (n + TILE_N - 1u) / TILE_N;

    float acc[THREAD_M * THREAD_N];
    float a_regs[THREAD_M];
    float b_regs[THREAD_N];

    for (uint tm = gl_WorkGroupID.y; tm < tiles_m; tm += gl_NumWorkGroups.y) {
        for (uint tn = gl_WorkGroupID.x; tn < tiles_n; tn += gl_NumWorkGroups.x) {
            [[unroll]] for (uint i = 0u; i < THREAD_M * THREAD_N; i++) {
                acc[i] = 0.0;
            }
            uint row0 = tm * TILE_M;
            uint col0 = tn * TILE_N;
            for (uint k0 = 0u; k0 < k; k0 += TILE_K) {
                // Phase a: both tiles, zero outside the matrices. -- barrier --
                for (uint s = lid; s < TILE_M * TILE_K; s += GROUP_SIZE) {
                    uint mm = s / TILE_K;
                    uint kk = s % TILE_K;
                    uint row = row0 + mm;
                    uint col = k0 + kk;
                    float value = 0.0;
                    if (row < m && col < k) {
                        value = a[row * k + col];
                    }
                    shared_a[kk * stride_a + mm] = value;
                }
                for (uint s = lid; s < TILE_K * TILE_N; s += GROUP_SIZE) {
                    uint kk = s / TILE_N;
                    uint nn = s % TILE_N;
                    uint row = k0 + kk;
                    uint col = col0 + nn;
                    float value = 0.0;
                    if (row < k && col < n) {
                        value = b[row * n + col];
                    }
                    shared_b[kk * stride_b + nn] = value;
                }
                barrier();

                // Phase b: this invocation's outer products. -- barrier --
                [[unroll]] for (uint kk = 0u; kk < TILE_K; kk++) {
                    [[unroll]] for (uint i = 0u; i < THREAD_M; i++) {
                        a_regs[i] = shared_a[kk * stride_a + ty * THREAD_M + i];
                    }
                    [[unroll]] for (uint j = 0u; j < THREAD_N; j++) {
                        b_regs[j] = shared_b[kk * stride_b + tx * THREAD_N + j];
                    }
                    [[unroll]] for (uint i = 0u; i < THREAD_M; i++) {
                        [[unroll]] for (uint j = 0u; j < THREAD_N; j++) {
                            acc[i * THREAD_N + j] += a_regs[i] * b_regs[j];
                        }
                    }
                }
                barrier();
            }

            // Last phase: store the micro-tile's elements inside C.
            [[unroll]] for (uint i = 0u; i < THREAD_M; i++) {
                uint row = row0 + ty * THREAD_M + i;
                [[unroll]] for (uint j = 0u; j < THREAD_N; j++) {
                    uint col = col0 + tx * THREAD_N + j;
                    if (row < m && col < n) {
                        c[row * n + col] = acc[i * THREAD_N + j];
                    }
                }
            }
        }
    }
}

// Matmul's split-K sum — CUDA C, compiled by NVRTC (see mod.rs for the
// algorithm and interface).
//
// Thread e of the flat grid over x and y adds element e of input planes
// z·fan_in … (at most fan_in, below `planes`) in plane order and writes it
// to element e of output plane z. Deterministic: no atomics, a fixed order.
// Shared memory: none. Barriers: none. The plan keeps planes·len below 2^31.
// Constants (-D NAME=valueu): GROUP_SIZE.

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
matmul_sum(const float* __restrict__ partials, float* __restrict__ out, unsigned int len,
           unsigned int planes, unsigned int fan_in)
{
    const unsigned int e = (blockIdx.y * gridDim.x + blockIdx.x) * GROUP_SIZE + threadIdx.x;
    if (e >= len) return;
    const unsigned int first = blockIdx.z * fan_in;
    const unsigned int count = min(fan_in, planes - first);
    float acc = 0.0f;
    for (unsigned int p = 0; p < count; ++p) acc += partials[(first + p) * len + e];
    out[blockIdx.z * len + e] = acc;
}

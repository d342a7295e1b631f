// probe -- the contract suite's kernel, CUDA C (see probe.wgsl).
// Shared memory: shared_words (GROUP_SIZE u32). Barriers: one, after the load.

extern "C" __global__ void probe(const unsigned int* __restrict__ input,
                                 unsigned int* __restrict__ output,
                                 unsigned int* __restrict__ counter,
                                 unsigned int n, unsigned int add) {
    __shared__ unsigned int shared_words[GROUP_SIZE];
    unsigned int lid = threadIdx.x;
    unsigned int base = blockIdx.x * GROUP_SIZE;
    unsigned int i = base + lid;
    // Phase 1: load. -- barrier --
    unsigned int value = 0u;
    if (i < n) {
        value = input[i];
    }
    shared_words[lid] = value;
    __syncthreads();
    // Phase 2: store reversed, count.
    if (i < n) {
        output[i] = shared_words[GROUP_SIZE - 1u - lid] + add;
        atomicAdd(&counter[0], 1u);
    }
}

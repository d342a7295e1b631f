# Exploration forms of kernels/matmul/matmul.cu, derived from it when a script runs (no copies kept):
#   derive:ablation  ABL_NOCOPY (no copies after the first STAGES - 1 slices: the loop computes on stale tiles),
#                    ABL_NOSYNC (no wait or barrier per slice); wrong results, timing only.
#   derive:swizzle   SWIZZLE: C's tiles in bands of SWIZZLE tile rows, each band walked column by column
#                    (0: row by row, as matmul.cu), for L2 reuse of B's columns between the blocks in flight.
#   derive:order     ORDER: the order of the outer product's multiply-adds (0 i-outer, as matmul.cu; 1 j-outer;
#                    2 i-outer serpentine; 3 j-outer serpentine; 4 serpentine alternating with kk).
# The 2026-11-25 runs used copies that commit 958d772 kept: scripts/matmul-explore/mm4-ablation.cu,
# mm5-fragpipe.cu (5a3ace7's kernel plus the operand double-buffer), mm6-order.cu.
KERNEL = 'kernels/matmul/matmul.cu'


def _replace(src, old, new):
    if old not in src:
        raise SystemExit('derive.py: kernels/matmul/matmul.cu no longer has the text to patch:\n' + old)
    return src.replace(old, new)


def ablation(src):
    src = _replace(src, '''            wait_copies<STAGES - 2u>();
            __syncthreads();
            const unsigned int ahead = slice + STAGES - 1u;
            if (ahead < slices) copy_next(''', '''#if !ABL_NOSYNC
            wait_copies<STAGES - 2u>();
            __syncthreads();
#endif
            const unsigned int ahead = slice + STAGES - 1u;
            if (!ABL_NOCOPY && ahead < slices) copy_next(''')
    return '#ifndef ABL_NOCOPY\n#define ABL_NOCOPY 0\n#endif\n#ifndef ABL_NOSYNC\n#define ABL_NOSYNC 0\n#endif\n' + src


def order(src):
    body = 'acc[i][j] += a_regs[kk % 2][i] * b_regs[kk % 2][j];'
    i_loop = 'for (unsigned int i = 0; i < THREAD_M; ++i)'
    j_loop = 'for (unsigned int j = 0; j < THREAD_N; ++j)'
    loops = {
        0: (i_loop, j_loop + ' { BODY }'),
        1: (j_loop, i_loop + ' { BODY }'),
        2: (i_loop, 'for (unsigned int jj = 0; jj < THREAD_N; ++jj) '
                    '{ const unsigned int j = i % 2 ? THREAD_N - 1 - jj : jj; BODY }'),
        3: (j_loop, 'for (unsigned int ii = 0; ii < THREAD_M; ++ii) '
                    '{ const unsigned int i = j % 2 ? THREAD_M - 1 - ii : ii; BODY }'),
        4: (i_loop, 'for (unsigned int jj = 0; jj < THREAD_N; ++jj) '
                    '{ const unsigned int j = (i + kk) % 2 ? THREAD_N - 1 - jj : jj; BODY }'),
    }
    forms = ''.join('#%s ORDER == %d\n#pragma unroll\n        %s\n#pragma unroll\n            %s\n' % (
        'if' if o == 0 else 'elif', o, outer, inner.replace('BODY', body)) for o, (outer, inner) in loops.items())
    return _replace(src, '''#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) ''' + body, forms + '#endif')


def swizzle(src):
    return '#ifndef SWIZZLE\n#define SWIZZLE 0\n#endif\n' + _replace(
        src, 'const unsigned int row0 = (tile / tiles_n) * TILE_M, col0 = (tile % tiles_n) * TILE_N;', '''unsigned int tile_row = tile / tiles_n, tile_col = tile % tiles_n;
#if SWIZZLE
        {
            const unsigned int band = tile / (SWIZZLE * tiles_n), first = band * SWIZZLE;
            const unsigned int rows = min(SWIZZLE, tiles_m - first), within = tile - first * tiles_n;
            tile_row = first + within % rows, tile_col = within / rows;
        }
#endif
        const unsigned int row0 = tile_row * TILE_M, col0 = tile_col * TILE_N;''')


def source(path):
    """The text of `path`, or of a derived form (`derive:NAME`)."""
    if path.startswith('derive:'):
        return {'ablation': ablation, 'order': order, 'swizzle': swizzle}[path.split(':', 1)[1]](open(KERNEL).read())
    return open(path).read()

// The CPU features std.video.transcode lets libx264 use, so that a clip codes to the same bytes in
// every process, in every encoder of a process, whatever the heap held before.
#pragma once

#include <string>

namespace rop::stdlib::video::detail {

// The value of libx264's `asm` option (x264-params): the features x264 detects on this CPU, less
// AVX-512, as a number ("1111039"). Empty when there is nothing to take away: the CPU or this
// libx264 has no AVX-512, or libx264's x264_cpu_detect and x264_cpu_names are not in the process.
//
// Why: libx264 (0.164.3095, Debian 12's; its git master of 2024-02 has the same code) codes
// frames that depend on bytes it never wrote when it runs its AVX-512 code. With B-frames and
// MB-tree (veryfast's defaults), macroblock_tree_propagate zeroes one row (i_mb_width entries) of
// a non-referenced B-frame's i_propagate_cost and reuses it for every row; the AVX-512
// mbtree_propagate_cost reads it 16 entries at a time and the AVX-512 mbtree_propagate_list
// spends its results 8 at a time, so when the width is not a multiple of 8 macroblocks (320 px:
// 20) amounts made from uninitialized heap land in the reference frames' costs, and their
// quantizers, and so the clip's bytes, follow whatever the heap held. Seen on 320 and 352 px
// wide clips, not on 256, 384 or 640. Its code without AVX-512 reads nothing uninitialized on
// the test videos (valgrind, which cannot run AVX-512, reports no error) and gives the same
// bytes with glibc's MALLOC_PERTURB_ at 85, at 170 and unset.
const std::string& x264_asm_without_avx512();

}  // namespace rop::stdlib::video::detail

// The content score of PySceneDetect's ContentDetector, on small RGB frames: used by
// std.video.clips(scenes: true) and unit-tested on its own.
#pragma once

#include <rop/stdlib/types.h>

#include <cstdint>
#include <vector>

namespace rop::stdlib::video::detail {

// Packed RGB (3 bytes a pixel) to packed HSV with OpenCV's 8-bit ranges: H 0..179 (degrees / 2),
// S and V 0..255.
std::vector<std::uint8_t> rgb_to_hsv(const std::vector<std::uint8_t>& rgb);

// The mean over H, S and V of the mean absolute difference between two HSV frames of the same
// size: PySceneDetect's content_val with its default weights (1, 1, 1, edges 0). 0 for equal
// frames; a cut between unrelated pictures is typically above 27, the default threshold.
double content_value(const std::vector<std::uint8_t>& hsv_a,
                     const std::vector<std::uint8_t>& hsv_b);

// The mean absolute difference of two gray frames of the same size (0..255): the motion score.
double mean_abs_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b);

// The variance of the 3x3 4-neighbour Laplacian over the interior pixels of a gray image
// (OpenCV's cv2.Laplacian(img, CV_64F).var() without the border): the sharpness score.
double laplacian_variance(const std::uint8_t* gray, int width, int height);

// The luma of an image (gray as it is; RGB with BT.601 weights), rows packed.
std::vector<std::uint8_t> luma(const Image& image);

}  // namespace rop::stdlib::video::detail

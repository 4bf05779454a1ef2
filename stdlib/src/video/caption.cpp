// What a video pipeline hands a vision-language model: a clip's frames tiled into one image; and
// the caption it answers, put back into the clip's record.
#include <rop/stdlib/video.h>

#include <algorithm>

#include "ffmpeg.h"

namespace rop::stdlib::video {

Page contact_sheet(std::span<const Frame> frames, const rop::Parent<Clip>& clip, int columns,
                   int max_frames) {
    if (columns < 1 || max_frames < 1) {
        detail::fail(clip->video_name, "contact_sheet needs columns and max_frames of at least 1");
    }
    Page page;
    page.doc_path = clip->video_path;
    page.doc_name = clip->video_name;
    page.index = clip->index;
    std::vector<const Frame*> chosen;  // evenly spaced, first and last included
    const auto count = static_cast<int>(frames.size());
    const int take = std::min(count, max_frames);
    for (int i = 0; i < take; ++i) {
        const int at = take == 1 ? 0 : i * (count - 1) / (take - 1);
        if (!frames[static_cast<std::size_t>(at)].image.empty()) {
            chosen.push_back(&frames[static_cast<std::size_t>(at)]);
        }
    }
    if (chosen.empty()) {
        return page;
    }
    const int cell_w = chosen.front()->image.width;
    const int cell_h = chosen.front()->image.height;
    const int cols = std::min(columns, static_cast<int>(chosen.size()));
    const int rows = (static_cast<int>(chosen.size()) + cols - 1) / cols;
    const int width = cell_w * cols;
    const int height = cell_h * rows;
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(
        static_cast<std::size_t>(width) * height * 3, 0);
    for (std::size_t n = 0; n < chosen.size(); ++n) {
        const Image& image = chosen[n]->image;
        const int x0 = static_cast<int>(n) % cols * cell_w;
        const int y0 = static_cast<int>(n) / cols * cell_h;
        const int w = std::min(image.width, cell_w);
        const int h = std::min(image.height, cell_h);
        for (int y = 0; y < h; ++y) {
            const std::uint8_t* src =
                image.pixels->data() + static_cast<std::size_t>(y) * image.stride();
            std::uint8_t* dst =
                pixels->data() + (static_cast<std::size_t>(y0 + y) * width + x0) * 3;
            for (int x = 0; x < w; ++x) {
                for (int c = 0; c < 3; ++c) {
                    dst[x * 3 + c] = src[x * image.channels + (image.channels == 3 ? c : 0)];
                }
            }
        }
    }
    page.image = Image{width, height, 3, std::move(pixels)};
    page.text_source = "ocr";
    return page;
}

ClipRecord with_caption(const ClipRecord& record, std::optional<std::string> caption) {
    ClipRecord out = record;
    out.caption = caption.value_or("");
    return out;
}

}  // namespace rop::stdlib::video

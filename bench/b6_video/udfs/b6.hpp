// B6's UDFs: count the frames a clip gave, and write one line per video with the total.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/stdlib/video.h>
#include <rop/udf.h>

#include <span>
#include <string>

namespace b6 {

// reduce Frame -> Clip: how many frames the clip gave (the frames themselves are dropped here).
inline int count(std::span<const rop::stdlib::video::Frame> frames) {
    return static_cast<int>(frames.size());
}

// reduce int -> Video: {"name": ..., "frames": N}.
inline rop::stdlib::JsonText total(std::span<const int> counts,
                                   const rop::Parent<rop::stdlib::video::Video>& video) {
    long sum = 0;
    for (const int n : counts) sum += n;
    return {"{\"name\": \"" + video->name + "\", \"frames\": " + std::to_string(sum) + "}"};
}

}  // namespace b6

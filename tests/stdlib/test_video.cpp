// std.video on the videos tests/data/make_test_videos.sh makes: open, clips at the known cuts,
// frames at a rate, audio, transcode (the same bytes every time), motion, sharpness, and every
// broken file's reason.
#include <malloc.h>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rop/stdlib/video.h"
#include "scene.h"
#include "x264_cpu.h"

extern "C" {
#include <libavutil/cpu.h>
}

using namespace rop::stdlib;
using Catch::Approx;

namespace {

const std::string kVideos = std::string(ROP_TEST_DATA_DIR) + "/video";
constexpr double kFrame = 1.0 / 25;  // scenes.mp4's frame duration

File file(const std::string& relative) { return File{kVideos + "/" + relative, relative, {}}; }

std::vector<video::Clip> clips_of(const video::Video& v, double length, double stride,
                                  bool scenes) {
    rop::CollectingEmitter<video::Clip> out;
    video::clips(v, out, length, stride, scenes);
    return out.children;
}

std::vector<video::Frame> frames_of(const video::Clip& clip, double fps,
                                    video::Color color = video::Color::rgb, int width = 0) {
    rop::CollectingEmitter<video::Frame> out;
    video::frames(clip, out, fps, color, width);
    return out.children;
}

video::Clip clip_at(const video::Video& v, double start, double end) {
    video::Clip clip;
    clip.video_path = v.path;
    clip.video_name = v.name;
    clip.start = start;
    clip.end = end;
    clip.fps = v.fps;
    return clip;
}

std::string failure_of(const std::string& relative) {
    try {
        video::open(file(relative));
    } catch (const rop::RecordFailure& failure) {
        return failure.reason();
    }
    return "(no failure)";
}

}  // namespace

TEST_CASE("open reads the container and its streams") {
    const video::Video v = video::open(file("scenes.mp4"));
    CHECK(v.name == "scenes.mp4");
    CHECK(v.duration == Approx(5.0).margin(0.05));
    CHECK(v.streams == 2);
    CHECK(v.codec == "h264");
    CHECK(v.fps == Approx(25.0));
    CHECK(v.width == 320);
    CHECK(v.height == 240);
    CHECK(v.has_audio);
    CHECK(v.audio_codec == "aac");
    CHECK(v.sample_rate == 44100);
    CHECK(v.channels == 2);

    const video::Video mkv = video::open(file("moving.mkv"));
    CHECK(mkv.codec == "mpeg4");
    CHECK(mkv.fps == Approx(30.0));
    CHECK(mkv.duration == Approx(3.0).margin(0.05));
    CHECK_FALSE(mkv.has_audio);
    CHECK(mkv.format == "matroska,webm");
}

TEST_CASE("scene clips end at the known cuts, within a frame") {
    const video::Video v = video::open(file("scenes.mp4"));
    const auto clips = clips_of(v, 10, 0, true);
    REQUIRE(clips.size() == 3);
    const double cuts[] = {0.0, 2.0, 3.6, 5.0};
    for (int i = 0; i < 3; ++i) {
        CHECK(clips[i].index == i);
        CHECK(clips[i].cut == "scene");
        CHECK(clips[i].start == Approx(cuts[i]).margin(kFrame));
        CHECK(clips[i].end == Approx(cuts[i + 1]).margin(kFrame));
        CHECK(clips[i].video_path == v.path);
        CHECK(clips[i].has_audio);
    }
    // A threshold above every difference finds no cut: one clip, the whole video.
    rop::CollectingEmitter<video::Clip> one;
    video::clips(v, one, 10, 0, true, 300);
    REQUIRE(one.children.size() == 1);
    CHECK(one.children[0].end == Approx(5.0).margin(kFrame));
}

TEST_CASE("fixed clips follow length and stride, the last one cut at the end") {
    const video::Video v = video::open(file("scenes.mp4"));
    const auto by_two = clips_of(v, 2, 0, false);
    REQUIRE(by_two.size() == 3);
    CHECK(by_two[0].start == 0.0);
    CHECK(by_two[1].start == Approx(2.0));
    CHECK(by_two[2].start == Approx(4.0));
    CHECK(by_two[2].end == Approx(5.0).margin(0.05));
    CHECK(by_two[1].cut == "stride");
    const auto overlapping = clips_of(v, 2, 1.5, false);
    REQUIRE(overlapping.size() == 4);
    CHECK(overlapping[3].start == Approx(4.5));
    CHECK(overlapping[1].end == Approx(3.5));
    rop::CollectingEmitter<video::Clip> out;
    CHECK_THROWS_AS(video::clips(v, out, 0, 0, false), rop::RecordFailure);
}

TEST_CASE("frames are sampled at the rate asked, decoded once, converted") {
    const video::Video v = video::open(file("scenes.mp4"));
    const auto two_per_second = frames_of(clip_at(v, 0, 2), 2);
    REQUIRE(two_per_second.size() == 4);
    for (int i = 0; i < 4; ++i) {
        CHECK(two_per_second[i].index == i);
        CHECK(two_per_second[i].timestamp == Approx(0.5 * i).margin(kFrame / 2));
        CHECK(two_per_second[i].image.width == 320);
        CHECK(two_per_second[i].image.height == 240);
        CHECK(two_per_second[i].image.channels == 3);
        CHECK(two_per_second[i].image.pixels->size() == 320u * 240u * 3u);
    }
    // A clip in the middle (a seek): 1.6 s at 5 fps, gray, scaled to 160 px wide.
    const auto middle = frames_of(clip_at(v, 2.0, 3.6), 5, video::Color::gray, 160);
    REQUIRE(middle.size() == 8);
    CHECK(middle.front().timestamp == Approx(2.0).margin(kFrame / 2));
    CHECK(middle.back().timestamp == Approx(3.4).margin(kFrame / 2));
    CHECK(middle.front().image.width == 160);
    CHECK(middle.front().image.height == 120);
    CHECK(middle.front().image.channels == 1);
    // fps 0: every frame of the clip.
    CHECK(frames_of(clip_at(v, 0, 2), 0).size() == 50);
    CHECK(frames_of(clip_at(v, 4.0, 5.0), 0).size() == 25);
    // 30 fps source at 4 fps: 3 s -> 12 frames.
    const video::Video mkv = video::open(file("moving.mkv"));
    CHECK(frames_of(clip_at(mkv, 0, 3), 4).size() == 12);
    // A clip past the end has no frame: a failure, not an empty clip.
    rop::CollectingEmitter<video::Frame> none;
    CHECK_THROWS_AS(video::frames(clip_at(v, 6, 7), none), rop::RecordFailure);
}

TEST_CASE("audio is resampled to mono 16 kHz and trimmed to the clip") {
    const video::Video v = video::open(file("scenes.mp4"));
    const video::Audio a = video::audio(clip_at(v, 2.0, 3.6));
    CHECK(a.sample_rate == 16000);
    CHECK(a.channels == 1);
    CHECK(static_cast<double>(a.frames()) == Approx(1.6 * 16000).margin(160));
    // lavfi's sine has amplitude 1/8: RMS 0.125 / sqrt(2).
    double sum_sq = 0;
    for (float s : *a.samples) {
        sum_sq += static_cast<double>(s) * s;
    }
    CHECK(std::sqrt(sum_sq / static_cast<double>(a.samples->size())) ==
          Approx(0.0884).margin(0.01));
    const video::Audio stereo = video::audio(clip_at(v, 0, 1), 8000, 2);
    CHECK(stereo.channels == 2);
    CHECK(stereo.samples->size() == Approx(2 * 8000).margin(2 * 80));
    // No audio stream: an empty Audio, not a failure.
    const video::Video mkv = video::open(file("moving.mkv"));
    const video::Audio silent = video::audio(clip_at(mkv, 0, 1));
    CHECK(silent.frames() == 0);
    CHECK_THROWS_AS(video::audio(clip_at(v, 0, 1), 10), rop::RecordFailure);
}

TEST_CASE("transcode writes a clip FFmpeg opens with the clip's duration") {
    const video::Video v = video::open(file("scenes.mp4"));
    const auto clips = clips_of(v, 10, 0, true);
    REQUIRE(clips.size() == 3);
    const std::string dir = std::string(ROP_TEST_DATA_DIR) + "/video-out/transcode";
    std::filesystem::remove_all(dir);
    const std::string path = video::transcode(clips[1], dir);
    CHECK(path == dir + "/scenes-clip1.mp4");
    const video::Video written = video::open(File{path, "clip1", {}});
    CHECK(written.codec == "h264");
    CHECK(written.duration == Approx(clips[1].end - clips[1].start).margin(kFrame / 2));
    CHECK(written.width == 320);
    CHECK_FALSE(written.has_audio);
    const std::string mpeg4 = video::transcode(clips[2], dir, "mpeg4");
    const video::Video written4 = video::open(File{mpeg4, "clip2", {}});
    CHECK(written4.codec == "mpeg4");
    CHECK(written4.duration == Approx(clips[2].end - clips[2].start).margin(kFrame / 2));
    // Only the two clips: no temp file is left behind.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        CHECK(entry.path().filename().string().rfind(".", 0) != 0);
        ++files;
    }
    CHECK(files == 2);
    CHECK_THROWS_AS(video::transcode(clips[0], dir, "no-such-encoder"), rop::RecordFailure);
}

namespace {

std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const std::streamoff size = in.tellg();
    std::string bytes(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
}

// "" when the two files' bytes are equal, else where they part.
std::string difference(const std::string& got, const std::string& want) {
    if (got == want) {
        return "";
    }
    std::size_t at = 0;
    while (at < got.size() && at < want.size() && got[at] == want[at]) {
        ++at;
    }
    return std::to_string(got.size()) + " bytes against " + std::to_string(want.size()) +
           ", the first difference at byte " + std::to_string(at);
}

// The bytes transcode writes for `clip` into `dir`, or the reason it failed (on any thread).
std::string transcoded(const video::Clip& clip, const std::string& dir) {
    try {
        return bytes_of(video::transcode(clip, dir));
    } catch (const std::exception& e) {
        return std::string("failed: ") + e.what();
    }
}

// For its scope glibc fills every block malloc hands out with `fill` ^ 0xff: the heap of another
// process, or of one that ran other work first, which libx264's buffers come from.
class HeapFill {
  public:
    explicit HeapFill(int fill) { mallopt(M_PERTURB, fill); }
    ~HeapFill() { mallopt(M_PERTURB, 0); }
    HeapFill(const HeapFill&) = delete;
    HeapFill& operator=(const HeapFill&) = delete;
};

}  // namespace

TEST_CASE("transcode codes a clip to the same bytes in every encoder and every process") {
    // 320 px wide, 20 macroblocks: libx264's AVX-512 code made these two clips depend on what
    // the heap held (x264_cpu.h).
    const video::Video scenes = video::open(file("scenes.mp4"));
    const video::Video blurry = video::open(file("blurry.mp4"));
    const std::vector<video::Clip> clips = {clips_of(scenes, 10, 0, true).at(1),
                                            clips_of(blurry, 10, 0, true).at(0)};
    const std::string dir = std::string(ROP_TEST_DATA_DIR) + "/video-out/same-bytes";
    std::filesystem::remove_all(dir);
    for (const video::Clip& clip : clips) {
        INFO(clip.video_name << " clip " << clip.index);
        const std::string first = transcoded(clip, dir + "/first");
        REQUIRE(first.rfind("failed: ", 0) == std::string::npos);
        // Again, the heap now holding the first encoder's freed buffers.
        CHECK(difference(transcoded(clip, dir + "/again"), first) == "");
        // Two pipelines at once in this process.
        std::string left;
        std::string right;
        std::thread one([&] { left = transcoded(clip, dir + "/left"); });
        std::thread two([&] { right = transcoded(clip, dir + "/right"); });
        one.join();
        two.join();
        CHECK(difference(left, first) == "");
        CHECK(difference(right, first) == "");
        // Processes whose heaps held other bytes.
        for (const int fill : {0x55, 0xaa}) {
            INFO("heap filled with " << (fill ^ 0xff));
            const HeapFill heap(fill);
            CHECK(difference(transcoded(clip, dir + "/fill" + std::to_string(fill)), first) == "");
        }
    }
    // libx264's features less AVX-512 were found exactly where the CPU has AVX-512 (FFmpeg's own
    // detection agrees with x264's on that).
    const bool avx512 = (av_get_cpu_flags() & AV_CPU_FLAG_AVX512) != 0;
    CHECK(video::detail::x264_asm_without_avx512().empty() == !avx512);
}

TEST_CASE("motion: a still clip scores ~0, a moving one well above") {
    const video::Video v = video::open(file("scenes.mp4"));
    const auto clips = clips_of(v, 10, 0, true);
    REQUIRE(clips.size() == 3);
    const double moving = video::motion(clips[0]);  // testsrc2: scrolling pattern
    const double still = video::motion(clips[2]);   // smptebars: still
    CHECK(still < 0.5);
    CHECK(moving > 1.0);
    CHECK(moving > 100 * still);
    CHECK(video::with_motion(clips[2]).motion == Approx(still));
    CHECK(video::moving(clips[0], 1.0));
    CHECK_FALSE(video::moving(video::with_motion(clips[2]), 1.0));
}

TEST_CASE("sharpness: a blurred frame scores far below a sharp one") {
    const video::Video sharp_video = video::open(file("scenes.mp4"));
    const video::Video blurry_video = video::open(file("blurry.mp4"));
    const auto sharp_frames = frames_of(clip_at(sharp_video, 1.0, 1.5), 2);
    const auto blurry_frames = frames_of(clip_at(blurry_video, 1.0, 1.5), 2);
    REQUIRE(sharp_frames.size() == 1);
    REQUIRE(blurry_frames.size() == 1);
    const double sharp = video::sharpness(sharp_frames[0]);
    const double blurry = video::sharpness(blurry_frames[0]);
    CHECK(blurry * 10 < sharp);
    CHECK(video::sharp(sharp_frames[0], sharp / 2));
    CHECK_FALSE(video::sharp(blurry_frames[0], sharp / 2));
    CHECK(video::with_sharpness(blurry_frames[0]).sharpness == Approx(blurry));
    // A flat image has no edges; one bright pixel on black: Laplacian -4*255 there, 255 at its 4
    // neighbours, 0 elsewhere (over the 3x3 interior).
    const std::vector<std::uint8_t> flat(25, 90);
    CHECK(video::detail::laplacian_variance(flat.data(), 5, 5) == 0.0);
    std::vector<std::uint8_t> dot(25, 0);
    dot[12] = 255;
    const double values[] = {-1020, 255, 255, 255, 255};
    double mean = 0;
    double sq = 0;
    for (double x : values) {
        mean += x / 9;
        sq += x * x / 9;
    }
    CHECK(video::detail::laplacian_variance(dot.data(), 5, 5) == Approx(sq - mean * mean));
    const auto stats = video::frame_stats(std::vector<video::Frame>{
        video::with_sharpness(sharp_frames[0]), video::with_sharpness(blurry_frames[0])});
    CHECK(stats.frames == 2);
    CHECK(stats.max_sharpness == Approx(sharp));
    CHECK(stats.min_sharpness == Approx(blurry));
    CHECK(stats.mean_sharpness == Approx((sharp + blurry) / 2));
}

TEST_CASE("content value: HSV difference as PySceneDetect computes it") {
    // Pure red vs pure blue: H 0 vs 120, S and V equal: (120 + 0 + 0) / 3 = 40.
    const auto red = video::detail::rgb_to_hsv({255, 0, 0, 255, 0, 0});
    const auto blue = video::detail::rgb_to_hsv({0, 0, 255, 0, 0, 255});
    CHECK(red[0] == 0);
    CHECK(blue[0] == 120);
    CHECK(blue[1] == 255);
    CHECK(blue[2] == 255);
    CHECK(video::detail::content_value(red, blue) == Approx(40.0));
    CHECK(video::detail::content_value(red, red) == 0.0);
    // Black vs white: V differs by 255: 255 / 3 = 85.
    const auto black = video::detail::rgb_to_hsv({0, 0, 0});
    const auto white = video::detail::rgb_to_hsv({255, 255, 255});
    CHECK(video::detail::content_value(black, white) == Approx(85.0));
}

TEST_CASE("broken files fail with a reason naming the file and what FFmpeg said") {
    CHECK(failure_of("broken/empty.mp4") == "broken/empty.mp4: empty file");
    CHECK(failure_of("broken/text.mp4") ==
          "broken/text.mp4: cannot open: Invalid data found when processing input (moov atom "
          "not found)");
    CHECK(failure_of("broken/corrupt.mp4") ==
          "broken/corrupt.mp4: cannot open: Invalid data found when processing input (moov atom "
          "not found)");
    CHECK(failure_of("broken/audio_only.mp4") ==
          "broken/audio_only.mp4: no video stream (audio only)");
    CHECK(failure_of("broken/unsupported.mp4") ==
          "broken/unsupported.mp4: no decoder for codec none, tag zzzz");
    CHECK(failure_of("broken/missing.mp4") ==
          "broken/missing.mp4: cannot open: No such file or directory");
    const std::string truncated = failure_of("broken/truncated.mp4");
    INFO(truncated);
    CHECK(truncated == "broken/truncated.mp4: truncated: no frame after 4 s of 5 s (End of file)");
}

TEST_CASE("contact_sheet tiles evenly spaced frames for a model; with_caption fills the record") {
    const video::Video v = video::open(file("scenes.mp4"));
    const video::Clip clip = clip_at(v, 0, 2);
    const auto frames = frames_of(clip, 4, video::Color::rgb, 160);  // 8 frames, 160x120
    REQUIRE(frames.size() == 8);
    const rop::Parent<video::Clip> parent(clip);
    const Page sheet = video::contact_sheet(frames, parent, 2, 4);
    CHECK(sheet.doc_path == v.path);
    CHECK(sheet.image.width == 320);
    CHECK(sheet.image.height == 240);
    CHECK(sheet.image.channels == 3);
    // The bottom-right tile is the last frame (frames 0, 2, 4, 7 are taken).
    const auto& last = *frames[7].image.pixels;
    const auto& tiled = *sheet.image.pixels;
    const std::size_t at_sheet = (static_cast<std::size_t>(120 + 60) * 320 + 160 + 80) * 3;
    const std::size_t at_frame = (static_cast<std::size_t>(60) * 160 + 80) * 3;
    CHECK(tiled[at_sheet] == last[at_frame]);
    CHECK(tiled[at_sheet + 2] == last[at_frame + 2]);
    // Gray frames become RGB; no frames give a page without an image.
    const auto gray = frames_of(clip, 1, video::Color::gray, 160);
    CHECK(video::contact_sheet(gray, parent, 3, 3).image.width == 160 * 2);
    CHECK(video::contact_sheet({}, parent).image.empty());
    video::ClipRecord record;
    CHECK(video::with_caption(record, std::string("a test pattern")).caption == "a test pattern");
    CHECK(video::with_caption(record, std::nullopt).caption.empty());
}

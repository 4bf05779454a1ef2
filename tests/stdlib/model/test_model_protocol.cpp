// The model client's pure parts: PNG + base64 encoding (checked by decoding with libpng), the
// base URL, request bodies and what error and completion bodies mean.
#include <png.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "png_encoder.h"
#include "protocol.h"

namespace detail = rop::stdlib::model::detail;
using Catch::Matchers::ContainsSubstring;
using nlohmann::json;

namespace {

struct Decoded {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<std::uint8_t> pixels;
};

Decoded decode(const std::string& png_bytes) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    REQUIRE(png_image_begin_read_from_memory(&image, png_bytes.data(), png_bytes.size()));
    Decoded out;
    out.width = static_cast<int>(image.width);
    out.height = static_cast<int>(image.height);
    out.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
    out.pixels.resize(PNG_IMAGE_SIZE(image));
    REQUIRE(png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr));
    return out;
}

std::vector<std::uint8_t> pattern(std::size_t size) {
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<std::uint8_t>((i * 37 + i / 7) & 0xFF);
    return bytes;
}

}  // namespace

TEST_CASE("PNG round-trips gray, gray+alpha, RGB and RGBA pixels", "[png]") {
    for (int channels : {1, 2, 3, 4}) {
        const int width = 37;
        const int height = 23;
        const auto pixels = pattern(static_cast<std::size_t>(width * height * channels));
        const std::string png = detail::encode_png({width, height, channels, 0, pixels});
        const Decoded decoded = decode(png);
        CHECK(decoded.width == width);
        CHECK(decoded.height == height);
        CHECK(decoded.channels == channels);
        CHECK(decoded.pixels == pixels);
    }
}

TEST_CASE("PNG honours a row stride and rejects inconsistent images", "[png]") {
    const int width = 5;
    const int height = 4;
    const std::size_t stride = 8;
    const auto padded = pattern(stride * height);
    const Decoded decoded = decode(detail::encode_png({width, height, 1, stride, padded}));
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            CHECK(decoded.pixels[static_cast<std::size_t>(y * width + x)] ==
                  padded[y * stride + x]);
        }
    }
    const std::vector<std::uint8_t> few(10);
    CHECK_THROWS_AS(detail::encode_png({5, 4, 1, 0, few}), std::invalid_argument);
    CHECK_THROWS_AS(detail::encode_png({0, 4, 1, 0, few}), std::invalid_argument);
    CHECK_THROWS_AS(detail::encode_png({2, 1, 5, 0, few}), std::invalid_argument);
}

TEST_CASE("PNG of a white page is small", "[png]") {
    const std::vector<std::uint8_t> white(612 * 792, 255);
    CHECK(detail::encode_png({612, 792, 1, 0, white}).size() < 4000);
}

TEST_CASE("base64 matches RFC 4648's test vectors", "[png]") {
    CHECK(detail::base64_encode("") == "");
    CHECK(detail::base64_encode("f") == "Zg==");
    CHECK(detail::base64_encode("fo") == "Zm8=");
    CHECK(detail::base64_encode("foo") == "Zm9v");
    CHECK(detail::base64_encode("foob") == "Zm9vYg==");
    CHECK(detail::base64_encode("fooba") == "Zm9vYmE=");
    CHECK(detail::base64_encode("foobar") == "Zm9vYmFy");
    CHECK(detail::base64_encode(std::string("\xff\xfe\x00", 3)) == "//4A");
}

TEST_CASE("PNG of a 150 dpi page (1275x1650, gray and RGB) round-trips and compresses", "[png]") {
    // White paper with dark "text" runs on every other 20-row band, like a rendered page.
    const int width = 1275;
    const int height = 1650;
    for (int channels : {1, 3}) {
        std::vector<std::uint8_t> page(static_cast<std::size_t>(width * height * channels), 255);
        for (int y = 150; y < height - 150; ++y) {
            if ((y / 20) % 2 != 0 || y % 20 > 12) continue;
            for (int x = 150; x < width - 150; ++x) {
                if ((x * 7 + y * 3) % 11 < 4) {
                    for (int c = 0; c < channels; ++c)
                        page[static_cast<std::size_t>((y * width + x) * channels + c)] =
                            static_cast<std::uint8_t>(20 + 30 * c);
                }
            }
        }
        const std::string png = detail::encode_png({width, height, channels, 0, page});
        CHECK(png.size() < page.size() / 10);
        const Decoded decoded = decode(png);
        CHECK(decoded.width == width);
        CHECK(decoded.height == height);
        CHECK(decoded.channels == channels);
        CHECK(decoded.pixels == page);
    }
}

TEST_CASE("base64 of a long input is one line with padding only at the end", "[png]") {
    std::string foo;
    std::string expected;
    for (int i = 0; i < 1000; ++i) {
        foo += "foo";
        expected += "Zm9v";
    }
    CHECK(detail::base64_encode(foo) == expected);
    CHECK(detail::base64_encode(foo + "f") == expected + "Zg==");
    const std::string url = detail::png_data_url({1, 1, 1, 0, std::vector<std::uint8_t>{0}});
    CHECK(url.rfind("data:image/png;base64,iVBORw0KGgo", 0) == 0);  // the PNG signature
}

TEST_CASE("base URLs: scheme, host, port, path; junk is refused", "[protocol]") {
    auto e = detail::parse_base_url("http://127.0.0.1:8000/v1");
    CHECK_FALSE(e.tls);
    CHECK(e.host == "127.0.0.1");
    CHECK(e.port == "8000");
    CHECK(e.target == "/v1/chat/completions");
    CHECK(e.url == "http://127.0.0.1:8000/v1/chat/completions");

    e = detail::parse_base_url("http://gpu-box/v1/");
    CHECK(e.host == "gpu-box");
    CHECK(e.port == "80");
    CHECK(e.target == "/v1/chat/completions");

    e = detail::parse_base_url("http://[::1]:30000");
    CHECK(e.host == "::1");
    CHECK(e.port == "30000");
    CHECK(e.target == "/chat/completions");
    CHECK(e.url == "http://[::1]:30000/chat/completions");

    e = detail::parse_base_url("https://api.openai.com/v1");
    CHECK(e.tls);
    CHECK(e.host == "api.openai.com");
    CHECK(e.port == "443");
    CHECK(e.authority() == "api.openai.com:443");
    CHECK(e.url == "https://api.openai.com:443/v1/chat/completions");

    e = detail::parse_base_url("HTTPS://Models.Example.com:8443/openai/v1%20x");
    CHECK(e.tls);
    CHECK(e.port == "8443");
    CHECK(e.target == "/openai/v1%20x/chat/completions");  // still percent-encoded

    CHECK_THROWS_WITH(detail::parse_base_url("localhost:8000/v1"),
                      "model: base_url 'localhost:8000/v1' must look like http://host:port/v1 or "
                      "https://host/v1");
    CHECK_THROWS_WITH(detail::parse_base_url("ftp://host/v1"),
                      ContainsSubstring("must look like http://host:port/v1"));
    CHECK_THROWS_WITH(detail::parse_base_url("http://host/v1?x=1"),
                      ContainsSubstring("must not have a query"));
    CHECK_THROWS_AS(detail::parse_base_url("http://host:99999/v1"), std::invalid_argument);
    CHECK_THROWS_AS(detail::parse_base_url("http://host:/v1"), std::invalid_argument);
    CHECK_THROWS_AS(detail::parse_base_url("http://:8000/v1"), std::invalid_argument);
    CHECK_THROWS_WITH(detail::parse_base_url("http://user:pw@host:8000/v1"),
                      ContainsSubstring("has credentials"));
    CHECK_THROWS_WITH(detail::parse_base_url("http://host:99999/v1"),
                      ContainsSubstring("has a bad port"));
}

TEST_CASE("an image request is one user message: image_url part, then the prompt", "[protocol]") {
    detail::RequestOptions options;
    options.model = "Qwen/Qwen2.5-VL-7B-Instruct";
    options.prompt = "Convert this page to Markdown.";
    options.max_tokens = 512;
    options.temperature = 0.25;
    options.system = "You are careful.";
    const json body =
        json::parse(detail::image_request_body(options, "data:image/png;base64,AAAA"));
    CHECK(body["model"] == "Qwen/Qwen2.5-VL-7B-Instruct");
    CHECK(body["max_tokens"] == 512);
    CHECK(body["temperature"] == 0.25);
    REQUIRE(body["messages"].size() == 2);
    CHECK(body["messages"][0] == json{{"role", "system"}, {"content", "You are careful."}});
    const json& user = body["messages"][1];
    CHECK(user["role"] == "user");
    REQUIRE(user["content"].size() == 2);
    CHECK(user["content"][0] ==
          json{{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64,AAAA"}}}});
    CHECK(user["content"][1] == json{{"type", "text"}, {"text", "Convert this page to Markdown."}});
}

TEST_CASE("a text request joins prompt and item; max_tokens <= 0 is left to the server",
          "[protocol]") {
    detail::RequestOptions options;
    options.model = "m";
    options.prompt = "Summarize:";
    json body = json::parse(detail::text_request_body(options, "a \"quoted\"\nline"));
    CHECK_FALSE(body.contains("max_tokens"));
    REQUIRE(body["messages"].size() == 1);
    CHECK(body["messages"][0]["content"] == "Summarize:\n\na \"quoted\"\nline");
    options.prompt.clear();
    body = json::parse(detail::text_request_body(options, "just this"));
    CHECK(body["messages"][0]["content"] == "just this");
}

TEST_CASE("completion bodies: content, finish reason, usage; junk is an item error", "[protocol]") {
    const auto good = detail::parse_completion(
        R"({"choices":[{"index":0,"message":{"role":"assistant","content":"# Title"},"finish_reason":"length"}],)"
        R"("usage":{"prompt_tokens":12,"completion_tokens":34}})");
    CHECK(good.ok());
    CHECK(good.text == "# Title");
    CHECK(good.finish_reason == "length");
    CHECK(good.prompt_tokens == 12);
    CHECK(good.completion_tokens == 34);
    CHECK(good.status == 200);

    const auto null_content =
        detail::parse_completion(R"({"choices":[{"message":{"content":null}}]})");
    CHECK(null_content.ok());
    CHECK(null_content.text.empty());

    CHECK_THAT(detail::parse_completion("<html>oops</html>").error, ContainsSubstring("not JSON"));
    CHECK_THAT(detail::parse_completion(R"({"choices":[]})").error,
               ContainsSubstring("no choices"));
}

TEST_CASE("error bodies: OpenAI, vLLM and FastAPI shapes, else the text", "[protocol]") {
    CHECK(detail::error_message(
              R"({"error":{"message":"context too long","type":"invalid_request_error"}})") ==
          "context too long");
    CHECK(
        detail::error_message(
            R"({"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","code":404})") ==
        "The model `x` does not exist.");
    CHECK(detail::error_message(R"({"detail":"Not Found"})") == "Not Found");
    CHECK(detail::error_message("  Bad Gateway\n") == "Bad Gateway");
    CHECK(detail::error_message("") == "(empty body)");
    CHECK(detail::error_message(std::string(2000, 'x')).size() == 503);
}

TEST_CASE("Retry-After in seconds", "[protocol]") {
    CHECK(detail::retry_after("2") == std::chrono::milliseconds(2000));
    CHECK(detail::retry_after("0.25") == std::chrono::milliseconds(250));
    CHECK_FALSE(detail::retry_after("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
    CHECK_FALSE(detail::retry_after("").has_value());
}

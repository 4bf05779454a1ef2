// The model class UDFs (ChatPages, ChatRegions, ChatText) and the element helpers over
// Completion (text, ok, page_content). Each class owns one Client: its actor's event loop.
#include <functional>
#include <stdexcept>

#include "answer_blocks.h"
#include "client.h"
#include "png_encoder.h"
#include "rop/stdlib/model.h"

namespace rop::stdlib::model {
namespace {

detail::Settings settings_of(std::string base_url, std::string model, std::string prompt,
                             int max_tokens, double temperature, std::chrono::milliseconds timeout,
                             int max_in_flight, int retries, std::chrono::milliseconds backoff,
                             std::string api_key_env, std::string system_prompt,
                             std::string ca_bundle, bool probe, std::chrono::milliseconds budget,
                             std::chrono::milliseconds root_budget, int breaker) {
    detail::Settings settings;
    settings.base_url = std::move(base_url);
    settings.model = std::move(model);
    settings.prompt = std::move(prompt);
    settings.max_tokens = max_tokens;
    settings.temperature = temperature;
    settings.timeout = timeout;
    settings.max_in_flight = max_in_flight;
    settings.retries = retries;
    settings.backoff = backoff;
    settings.api_key_env = std::move(api_key_env);
    settings.system_prompt = std::move(system_prompt);
    settings.ca_bundle = std::move(ca_bundle);
    settings.probe = probe;
    settings.budget = budget;
    settings.root_budget = root_budget;
    settings.breaker = breaker;
    return settings;
}

// The request body for an image item; an item without pixels fails alone (RecordFailure).
std::string image_body(const detail::Client& client, const Image& image, const std::string& what) {
    if (image.empty()) throw rop::RecordFailure(what + " has no image to send to the model");
    detail::PixelView view;
    view.width = image.width;
    view.height = image.height;
    view.channels = image.channels;
    view.stride = image.stride();
    view.pixels = std::span<const std::uint8_t>(*image.pixels);
    std::string url;
    try {
        url = detail::png_data_url(view);
    } catch (const std::invalid_argument& bad) {
        throw rop::RecordFailure(what + ": " + bad.what());
    }
    return detail::image_request_body(client.request_options(), url);
}

std::string page_label(const Page& page) {
    return "page " + std::to_string(page.index + 1) + " of '" + page.doc_name + "'";
}

}  // namespace

#define ROP_MODEL_CLASS_BOILERPLATE(Class)                                                        \
    Class::Class(std::string base_url, std::string model, std::string prompt, int max_tokens,     \
                 double temperature, std::chrono::milliseconds timeout, int max_in_flight,        \
                 int retries, std::chrono::milliseconds backoff, std::string api_key_env,         \
                 std::string system_prompt, std::string ca_bundle, bool probe,                    \
                 std::chrono::milliseconds budget, std::chrono::milliseconds root_budget,         \
                 int breaker)                                                                     \
        : client_(std::make_unique<detail::Client>(                                               \
              settings_of(std::move(base_url), std::move(model), std::move(prompt), max_tokens,   \
                          temperature, timeout, max_in_flight, retries, backoff,                  \
                          std::move(api_key_env), std::move(system_prompt), std::move(ca_bundle), \
                          probe, budget, root_budget, breaker))) {}                               \
    Class::~Class() = default;                                                                    \
    Class::Class(Class&&) noexcept = default;                                                     \
    Class& Class::operator=(Class&&) noexcept = default;                                          \
    ClientStats Class::stats() const { return client_->stats(); }

ROP_MODEL_CLASS_BOILERPLATE(ChatPages)
ROP_MODEL_CLASS_BOILERPLATE(ChatRegions)
ROP_MODEL_CLASS_BOILERPLATE(ChatText)

#undef ROP_MODEL_CLASS_BOILERPLATE

std::vector<Completion> ChatPages::operator()(std::span<const Page> pages) {
    return client_->run(
        pages.size(),
        [&](std::size_t i) { return image_body(*client_, pages[i].image, page_label(pages[i])); },
        [&](std::size_t i) {
            const Page& page = pages[i];
            return detail::ItemId{page.doc_path + '\n' + std::to_string(page.index), page.doc_path};
        });
}

std::vector<Completion> ChatRegions::operator()(std::span<const Region> regions) {
    return client_->run(
        regions.size(),
        [&](std::size_t i) {
            const Region& region = regions[i];
            return image_body(*client_, region.image,
                              "region " + std::to_string(region.order) + " of page " +
                                  std::to_string(region.page_index + 1) + " of '" +
                                  region.doc_name + "'");
        },
        [&](std::size_t i) {
            const Region& region = regions[i];
            return detail::ItemId{region.doc_path + '\n' + std::to_string(region.page_index) +
                                      '\n' + std::to_string(region.order),
                                  region.doc_path};
        });
}

std::vector<Completion> ChatText::operator()(std::span<const std::string> texts) {
    return client_->run(
        texts.size(),
        [&](std::size_t i) {
            return detail::text_request_body(client_->request_options(), texts[i]);
        },
        // A text is named by its hash and size (the same text twice shares a budget), and has
        // no document.
        [&](std::size_t i) {
            return detail::ItemId{std::to_string(std::hash<std::string>{}(texts[i])) + '/' +
                                      std::to_string(texts[i].size()),
                                  ""};
        });
}

// A Completion's error is final: the server rejected the item (a 4xx other than 408 and 429),
// answered something that is not a chat completion, or the item had nothing to send. Retrying
// cannot change it, so it fails the item for good (rop::PermanentFailure).
std::string text(const Completion& completion) {
    if (!completion.ok()) throw rop::PermanentFailure("model: " + completion.error);
    return completion.text;
}

bool ok(const Completion& completion) { return completion.ok(); }

PageContent page_content(const Completion& completion, const Page& page) {
    if (!completion.ok())
        throw rop::PermanentFailure("model: " + page_label(page) + ": " + completion.error);
    PageContent content;
    content.doc_path = page.doc_path;
    content.doc_name = page.doc_name;
    content.page_index = page.index;
    content.width = page.width;
    content.height = page.height;
    content.text_source = "model";  // Markdown: its formulas are LaTeX, its text unescaped
    content.outline = page.outline;
    content.blocks = detail::answer_blocks(completion.text, BBox{0, 0, page.width, page.height});
    return content;
}

}  // namespace rop::stdlib::model

// rop/stdlib/model.h: an async client for OpenAI-compatible chat-completions servers (vLLM,
// SGLang) — pages, regions or text in, one completion per item out, many requests in flight.
// rop-link: rop_stdlib_model ssl crypto png z pthread
//
// http:// (a local `vllm serve ... --port 8000`) or https:// with the certificate checked, a
// bearer key from an environment variable, proxies from https_proxy/http_proxy/no_proxy;
// docs/model.md has the options, the failure mapping and a worked .rop line. Each actor owns one
// event loop and up to `max_in_flight` keep-alive connections; a batch call sends its items
// concurrently and returns their completions in input order.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rop::stdlib::model {

// One item's answer. A server that rejected the item (HTTP 4xx other than 408/429) or answered
// something that is not a chat completion leaves `error` set and `text` empty; std.model.text
// turns that into a rop::PermanentFailure downstream. Transient failures (429, 5xx, connection
// errors, timeouts) are retried within the item's budgets (retries, budget, root_budget, the
// circuit below) and, when those run out, leave `error` set too ("failed after 5 attempt(s) in
// 12.3 s: HTTP 503: ..."): the batch call returns, and the runtime has nothing to replay.
struct Completion {
    std::string text;           // choices[0].message.content
    std::string error;          // empty on success: "HTTP 400: <the server's message>" otherwise
    int status = 0;             // HTTP status of the answer (200 on success)
    std::string finish_reason;  // "stop", "length", ... as the server said
    std::int64_t prompt_tokens = 0;
    std::int64_t completion_tokens = 0;

    bool ok() const { return error.empty(); }
};

// Counters of one actor's client, for tests and logs (not part of any item).
struct ClientStats {
    std::uint64_t attempts = 0;            // attempts started (connecting included)
    std::uint64_t requests = 0;            // HTTP requests sent, retries included
    std::uint64_t retries = 0;             // attempts after a retryable failure
    std::uint64_t timeouts = 0;            // attempts that ran out of time
    std::uint64_t connections = 0;         // TCP connections opened
    std::uint64_t stale_reconnects = 0;    // kept-alive connections the server had closed
    std::uint64_t max_in_flight_seen = 0;  // most requests outstanding at once
};

namespace detail {
class Client;
}  // namespace detail

// The named arguments every model Call takes (the class UDFs' constructors, in this order):
//   base_url       "http://host:port/v1" or "https://host/v1"; requests go to POST
//                  <base_url>/chat/completions (through $https_proxy/$http_proxy unless
//                  $no_proxy names the host)
//   model          the served model name ("Qwen/Qwen2.5-VL-7B-Instruct")
//   prompt         the instruction sent with every item
//   max_tokens     completion length cap (<= 0: the server's default)
//   temperature    sampling temperature (0: greedy)
//   timeout        per attempt: connect, send, and the whole answer
//   max_in_flight  concurrent requests (and connections) per actor
//   retries        attempts after the first on 408/429/5xx/connection errors/timeouts
//   backoff        wait before the first retry; doubles per retry, at most 30 s (a 429's
//                  Retry-After, when longer, wins up to the same cap)
//   api_key_env    name of an environment variable holding the key ("": the one
//                  $ROP_MODEL_API_KEY_ENV names, else none); sent as
//                  `Authorization: Bearer <key>`, never in a message
//   system_prompt  optional system message
//   ca_bundle      https: a PEM file of trusted CAs ("": $ROP_CA_BUNDLE, else the system's)
//   probe          connect to the server (or proxy) when the actor is built, before the first
//                  batch: one that is down stops the run with its URL and the reason
//   budget         an item's time across all its attempts and the waits between them, in this
//                  batch and any the runtime replays (0s: none but `retries`); an attempt's
//                  timeout is cut to what is left
//   root_budget    a document's: the time its pages' (regions') failed attempts took, summed;
//                  once spent, its items not yet answered fail without a request (0s: none)
//   breaker        this many requests in a row without an answer (refused, reset, timed out)
//                  open the circuit: every later item fails at once, without a request (0: never)
// An item that gets no answer within these fails with its Completion::error ("failed after 3
// attempt(s) in 2.51 s (its budget: 2.5 s): timed out ..."), the batch goes on, and the runtime
// replays nothing; std.model.page_content names its page.
// The strings, numbers and bools among them may be changed when the pipeline runs:
// `--set answers.base_url=...` or $ROP_SET_ANSWERS_BASE_URL (docs/model.md).
// A retry is counted into the run report's "udf_counters" of the Call as "http_retries".

// Page images (std.pdf.pages) to text: one user message per page, the page image as a base64
// PNG data URL followed by the prompt.
class ChatPages {
  public:
    explicit ChatPages(std::string base_url, std::string model,
                       std::string prompt = "Convert this page to Markdown.", int max_tokens = 4096,
                       double temperature = 0.0,
                       std::chrono::milliseconds timeout = std::chrono::seconds(300),
                       int max_in_flight = 8, int retries = 4,
                       std::chrono::milliseconds backoff = std::chrono::milliseconds(500),
                       std::string api_key_env = "", std::string system_prompt = "",
                       std::string ca_bundle = "", bool probe = true,
                       std::chrono::milliseconds budget = std::chrono::milliseconds(0),
                       std::chrono::milliseconds root_budget = std::chrono::milliseconds(0),
                       int breaker = 8);
    ~ChatPages();
    ChatPages(ChatPages&&) noexcept;
    ChatPages& operator=(ChatPages&&) noexcept;

    std::vector<Completion> operator()(std::span<const Page> pages);
    ClientStats stats() const;

  private:
    std::unique_ptr<detail::Client> client_;
};

// Region images (std.layout.regions) to text, like ChatPages: a table region to HTML, a
// formula to LaTeX.
class ChatRegions {
  public:
    explicit ChatRegions(std::string base_url, std::string model,
                         std::string prompt = "Transcribe the text in this image.",
                         int max_tokens = 1024, double temperature = 0.0,
                         std::chrono::milliseconds timeout = std::chrono::seconds(120),
                         int max_in_flight = 8, int retries = 4,
                         std::chrono::milliseconds backoff = std::chrono::milliseconds(500),
                         std::string api_key_env = "", std::string system_prompt = "",
                         std::string ca_bundle = "", bool probe = true,
                         std::chrono::milliseconds budget = std::chrono::milliseconds(0),
                         std::chrono::milliseconds root_budget = std::chrono::milliseconds(0),
                         int breaker = 8);
    ~ChatRegions();
    ChatRegions(ChatRegions&&) noexcept;
    ChatRegions& operator=(ChatRegions&&) noexcept;

    std::vector<Completion> operator()(std::span<const Region> regions);
    ClientStats stats() const;

  private:
    std::unique_ptr<detail::Client> client_;
};

// Text to text: one user message per item, "<prompt>\n\n<item>" (just the item when the prompt
// is empty).
class ChatText {
  public:
    explicit ChatText(std::string base_url, std::string model, std::string prompt = "",
                      int max_tokens = 1024, double temperature = 0.0,
                      std::chrono::milliseconds timeout = std::chrono::seconds(120),
                      int max_in_flight = 8, int retries = 4,
                      std::chrono::milliseconds backoff = std::chrono::milliseconds(500),
                      std::string api_key_env = "", std::string system_prompt = "",
                      std::string ca_bundle = "", bool probe = true,
                      std::chrono::milliseconds budget = std::chrono::milliseconds(0),
                      std::chrono::milliseconds root_budget = std::chrono::milliseconds(0),
                      int breaker = 8);
    ~ChatText();
    ChatText(ChatText&&) noexcept;
    ChatText& operator=(ChatText&&) noexcept;

    std::vector<Completion> operator()(std::span<const std::string> texts);
    ClientStats stats() const;

  private:
    std::unique_ptr<detail::Client> client_;
};

// The completion's text; a Completion with an error fails the item (rop::RecordFailure with the
// server's message).
std::string text(const Completion& completion);

// Keeps the completions that succeeded (a filter, for pipelines that drop rejected items
// instead of failing them).
bool ok(const Completion& completion);

// A page's completion (the page's Markdown) as the page content std.assemble folds into a
// document, typed as MinerU's VLM backend has a page: headings with their levels, paragraphs,
// lists, tables, code, formulas and images, each block spanning the page (a model gives no
// positions). Fails the item like `text`.
PageContent page_content(const Completion& completion, const Page& page);

}  // namespace rop::stdlib::model

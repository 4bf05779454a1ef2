#include "lsp/server.h"

#include <istream>
#include <map>
#include <memory>
#include <ostream>

#include "lsp/document.h"
#include "lsp/transport.h"

namespace rop::lsp {

namespace {

// JSON-RPC 2.0 and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestFailed = -32803;

json error_reply(const json& id, int code, std::string message) {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"error", {{"code", code}, {"message", std::move(message)}}}};
}

json result_reply(const json& id, json result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json notification(std::string method, json params) {
    return {{"jsonrpc", "2.0"}, {"method", std::move(method)}, {"params", std::move(params)}};
}

Position position_at(const json& at) {
    return {at.at("line").get<std::uint32_t>(), at.at("character").get<std::uint32_t>()};
}

Position position_of(const json& params) { return position_at(params.at("position")); }

class Server {
  public:
    explicit Server(const ServerOptions& options)
        : udfs_(index_options(front_options(options), driver::find_toolchain())) {
        context_.front = front_options(options);
        context_.toolchain = driver::find_toolchain();
        context_.udfs = &udfs_;
    }

    // The replies and notifications one message from the client causes, in order.
    std::vector<json> handle(const json& message) {
        std::vector<json> out;
        if (!message.is_object()) {
            out.push_back(error_reply(nullptr, kInvalidRequest, "a message is a JSON object"));
            return out;
        }
        const json id = message.contains("id") ? message["id"] : json(nullptr);
        const bool request = message.contains("id");
        if (!message.contains("method")) {
            // A response to a request of ours (there are none) or nonsense: only a request
            // without a method is answered.
            if (request && !message.contains("result") && !message.contains("error")) {
                out.push_back(error_reply(id, kInvalidRequest, "a request needs a method"));
            }
            return out;
        }
        if (!message["method"].is_string() || message.value("jsonrpc", "") != "2.0" ||
            (request && !id.is_number_integer() && !id.is_string())) {
            if (request) {
                out.push_back(
                    error_reply(id.is_number_integer() || id.is_string() ? id : json(nullptr),
                                kInvalidRequest, "not a JSON-RPC 2.0 request"));
            }
            return out;
        }
        const std::string method = message["method"].get<std::string>();
        const json params = message.contains("params") ? message["params"] : json::object();
        try {
            dispatch(method, params, request, id, out);
        } catch (const json::exception& e) {
            if (request) {
                out.push_back(error_reply(id, kInvalidParams,
                                          "invalid params for " + method + ": " + e.what()));
            }
        } catch (const std::exception& e) {
            if (request) {
                out.push_back(error_reply(id, kInternalError,
                                          "internal error in " + method + ": " + e.what()));
            }
        }
        return out;
    }

    bool exited() const { return exited_; }
    int exit_status() const { return shutdown_ ? 0 : 1; }

  private:
    // `ropc check`'s options with the server's -I and --bind.
    static driver::FrontOptions front_options(const ServerOptions& options) {
        driver::FrontOptions front;
        front.bind = options.bind;
        front.include_dirs = options.include_dirs;
        front.cache_dir = options.cache_dir;
        return front;
    }

    // The index reads the headers as binding does (driver::bind_options).
    static UdfIndexOptions index_options(const driver::FrontOptions& front,
                                         const driver::Toolchain& toolchain) {
        const bind::ProgramBindOptions binding = driver::bind_options(front, toolchain);
        UdfIndexOptions index;
        index.stdlib_include_dirs = binding.stdlib_include_dirs;
        index.include_dirs = binding.include_dirs;
        index.pch_cache_dir = binding.pch_cache_dir;
        index.pch_seed_dir = binding.pch_seed_dir;
        return index;
    }

    void dispatch(const std::string& method, const json& params, bool request, const json& id,
                  std::vector<json>& out) {
        if (method == "exit") {
            exited_ = true;
            return;
        }
        if (!initialized_ && method != "initialize") {
            if (request) {
                out.push_back(error_reply(id, kServerNotInitialized, "initialize comes first"));
            }
            return;
        }
        if (shutdown_ && request) {
            out.push_back(error_reply(id, kInvalidRequest, "the server is shutting down"));
            return;
        }
        if (request) {
            if (method == "initialize") {
                out.push_back(result_reply(id, initialize(params)));
            } else if (method == "shutdown") {
                shutdown_ = true;
                out.push_back(result_reply(id, nullptr));
            } else if (method == "textDocument/hover") {
                out.push_back(result_reply(id, with_document(params, hover)));
            } else if (method == "textDocument/definition") {
                out.push_back(result_reply(id, with_document(params, definition)));
            } else if (method == "textDocument/completion") {
                out.push_back(result_reply(id, with_document(params, completion)));
            } else if (method == "textDocument/documentSymbol") {
                const Document* doc = document(params);
                out.push_back(result_reply(id, doc ? document_symbols(*doc) : json(nullptr)));
            } else if (method == "textDocument/formatting") {
                out.push_back(format(id, params));
            } else if (method == "textDocument/codeAction") {
                const Document* doc = document(params);
                const json& range = params.at("range");
                out.push_back(
                    result_reply(id, doc ? code_actions(*doc, position_at(range.at("start")),
                                                        position_at(range.at("end")))
                                         : json(nullptr)));
            } else {
                out.push_back(error_reply(id, kMethodNotFound, "unknown method '" + method + "'"));
            }
            return;
        }
        // Notifications; unknown ones (`$/cancelRequest`, `initialized`, ...) need nothing.
        if (method == "textDocument/didOpen") {
            const json& item = params.at("textDocument");
            open(item.at("uri").get<std::string>(), item.at("text").get<std::string>(),
                 item.value("version", std::int64_t{0}), out);
        } else if (method == "textDocument/didChange") {
            change(params, out);
        } else if (method == "textDocument/didSave") {
            // A `use` header may have been the file saved: read the headers again.
            udfs_.invalidate();
            const std::string uri = params.at("textDocument").at("uri").get<std::string>();
            if (auto found = documents_.find(uri); found != documents_.end()) {
                publish(*found->second, out);
            }
        } else if (method == "textDocument/didClose") {
            const std::string uri = params.at("textDocument").at("uri").get<std::string>();
            documents_.erase(uri);
            out.push_back(notification("textDocument/publishDiagnostics",
                                       {{"uri", uri}, {"diagnostics", json::array()}}));
        }
    }

    json initialize(const json& params) {
        initialized_ = true;
        if (params.contains("initializationOptions") &&
            params["initializationOptions"].is_object()) {
            const json& options = params["initializationOptions"];
            if (options.contains("bind") && options["bind"].is_boolean()) {
                context_.front.bind = options["bind"].get<bool>();
            }
        }
        json capabilities = {
            {"textDocumentSync",
             {{"openClose", true}, {"change", 1}, {"save", {{"includeText", false}}}}},
            {"hoverProvider", true},
            {"definitionProvider", true},
            {"documentFormattingProvider", true},
            {"documentSymbolProvider", true},
            {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
            {"completionProvider", {{"triggerCharacters", {"."}}, {"resolveProvider", false}}}};
        return {{"capabilities", std::move(capabilities)},
                {"serverInfo", {{"name", "ropc"}, {"version", ROP_VERSION}}}};
    }

    void open(const std::string& uri, std::string text, std::int64_t version,
              std::vector<json>& out) {
        auto doc = std::make_unique<Document>();
        doc->uri = uri;
        // A buffer that is not a file (`untitled:`) is checked as if in the current directory.
        doc->path = uri_to_path(uri).value_or("untitled.rop");
        doc->text = std::move(text);
        doc->version = version;
        Document& stored = *(documents_[uri] = std::move(doc));
        publish(stored, out);
    }

    void change(const json& params, std::vector<json>& out) {
        const json& item = params.at("textDocument");
        const auto found = documents_.find(item.at("uri").get<std::string>());
        if (found == documents_.end()) return;  // never opened: nothing to update
        Document& doc = *found->second;
        for (const json& change : params.at("contentChanges")) {
            if (change.contains("range")) {
                // Incremental, though the server asks for full text: apply it all the same.
                const std::uint32_t begin = offset_in(doc, change["range"].at("start"));
                const std::uint32_t end = offset_in(doc, change["range"].at("end"));
                doc.text.replace(begin, end >= begin ? end - begin : 0,
                                 change.at("text").get<std::string>());
            } else {
                doc.text = change.at("text").get<std::string>();
            }
        }
        doc.version = item.value("version", doc.version);
        publish(doc, out);
    }

    // An offset into `doc.text` as it is now (before the analysis sees the change).
    static std::uint32_t offset_in(const Document& doc, const json& at) {
        SourceManager sources;
        const FileId file = sources.add_buffer(doc.path, doc.text);
        return to_offset(
            sources, file,
            {at.at("line").get<std::uint32_t>(), at.at("character").get<std::uint32_t>()});
    }

    void publish(Document& doc, std::vector<json>& out) {
        analyze(doc, context_);
        out.push_back(notification("textDocument/publishDiagnostics", diagnostics_params(doc)));
    }

    // The open document `params` names, or null: nothing is known about a closed one.
    Document* document(const json& params) {
        const std::string uri = params.at("textDocument").at("uri").get<std::string>();
        const auto found = documents_.find(uri);
        return found == documents_.end() ? nullptr : found->second.get();
    }

    template <class Feature>
    json with_document(const json& params, Feature feature) {
        Document* doc = document(params);
        return doc ? feature(*doc, position_of(params), context_) : json(nullptr);
    }

    json format(const json& id, const json& params) {
        const Document* doc = document(params);
        if (doc == nullptr) return result_reply(id, nullptr);
        std::optional<json> edits = formatting(*doc);
        if (!edits) {
            return error_reply(id, kRequestFailed,
                               "the file does not parse; `ropc check` shows its syntax errors");
        }
        return result_reply(id, std::move(*edits));
    }

    UdfIndex udfs_;
    Context context_;
    std::map<std::string, std::unique_ptr<Document>> documents_;
    bool initialized_ = false;
    bool shutdown_ = false;
    bool exited_ = false;
};

}  // namespace

int serve(const ServerOptions& options, std::istream& in, std::ostream& out) {
    Server server(options);
    const auto send = [&out](const json& message) {
        // Source text may hold invalid UTF-8 (it reaches messages as quoted tokens).
        write_frame(out, message.dump(-1, ' ', false, json::error_handler_t::replace));
    };
    while (const std::optional<Frame> frame = read_frame(in)) {
        if (!frame->error.empty()) {
            send(error_reply(nullptr, kParseError, frame->error));
            continue;
        }
        const json message = json::parse(frame->body, nullptr, /*allow_exceptions=*/false);
        if (message.is_discarded()) {
            send(error_reply(nullptr, kParseError, "the message is not valid JSON"));
            continue;
        }
        for (const json& reply : server.handle(message)) send(reply);
        if (server.exited()) return server.exit_status();
    }
    return 1;
}

}  // namespace rop::lsp

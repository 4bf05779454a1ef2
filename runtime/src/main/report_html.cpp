// --report-html: the page. Everything is drawn here as inline SVG and tables; the page has no
// script and a Content-Security-Policy that forbids every fetch, so it opens the same offline.
#include "report_html.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string_view>

namespace rop::runtime::detail {

namespace {

// Timeline geometry, in SVG pixels.
constexpr double kLabelW = 220, kPlotW = 1000, kAxisH = 26, kLaneH = 12, kLaneGap = 2;
constexpr double kRowPad = 5;
// Actors drawn as their own lane per Call; past it, the rest share the last lane.
constexpr std::size_t kMaxLanes = 8;
// Rectangles per timeline row, about: each lane merges gaps under kPlotW * lanes / kMaxRects px.
constexpr double kMaxRects = 2000;
constexpr std::size_t kFillBins = 10, kLatencyBins = 30;
constexpr const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                   "#edc948", "#9c755f", "#ff9da7", "#bab0ac", "#e15759"};

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
    char buffer[128];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return std::string(buffer, n < 0 ? 0 : std::min<std::size_t>(n, sizeof buffer - 1));
}

std::string px(double v) { return printf_string("%.1f", v); }

// Text and attribute values alike: every character HTML gives a meaning to.
std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string seconds(double s) {
    if (!std::isfinite(s)) return "?";
    if (s == 0) return "0";  // the axes' origin
    if (s < 1e-3) return printf_string("%.0f us", s * 1e6);
    if (s < 1) return printf_string("%.3g ms", s * 1e3);
    if (s < 120) return printf_string("%.3g s", s);
    return printf_string("%.0fm%02.0fs", std::floor(s / 60), std::fmod(s, 60));
}

std::string bytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t u = 0;
    while (b >= 1024 && u + 1 < std::size(units)) b /= 1024, ++u;
    return u == 0 ? printf_string("%.0f B", b) : printf_string("%.1f %s", b, units[u]);
}

std::string percent(double fraction) { return printf_string("%.0f%%", fraction * 100); }

std::string count(std::uint64_t n) { return std::to_string(n); }

const char* color(std::size_t call) { return kColors[call % std::size(kColors)]; }

// A 1, 2 or 5 times a power of ten near span / 8: the timeline's and histograms' tick step.
double tick_step(double span) {
    const double raw = span / 8, power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0}) {
        if (m * power >= raw) return m * power;
    }
    return 10 * power;
}

// What the page measures of each Call, from the batch record and the counters.
struct CallMeasure {
    std::uint64_t batches = 0, grains = 0;
    double busy_s = 0;
    std::uint64_t fill[kFillBins] = {};
    std::vector<std::uint32_t> actors;  // distinct, sorted
};

// Root latencies (admission to done) of the roots that ran here: the listed ones, and the
// report's sample of those it only counted.
LatencySample latencies(const RunReport& report) {
    LatencySample sample = report.omitted.latency;
    for (const RootResult& r : report.roots) {
        if (!r.resumed) sample.add(r.latency_s);
    }
    return sample;
}

class Page {
  public:
    explicit Page(const RunPicture& picture) : p_(picture), r_(*picture.report) {
        calls_ = p_.calls;
        for (std::size_t c = calls_.size(); c < r_.calls.size(); ++c) {
            calls_.push_back({r_.calls[c].name, 1, 1});
        }
        measures_.resize(calls_.size());
        span_s_ = std::max(r_.wall_s, 1e-6);
        for (const BatchRecord& b : r_.batches) {
            if (b.call >= calls_.size()) continue;
            CallMeasure& m = measures_[b.call];
            ++m.batches;
            m.grains += b.size;
            m.busy_s += std::max<double>(0, static_cast<double>(b.end_ns - b.start_ns)) * 1e-9;
            const double fill = static_cast<double>(b.size) / std::max(1u, calls_[b.call].batch);
            ++m.fill[std::min<std::size_t>(
                kFillBins - 1, static_cast<std::size_t>(std::max(0.0, fill - 1e-9) * kFillBins))];
            m.actors.push_back(b.actor);
            span_s_ = std::max(span_s_, static_cast<double>(b.end_ns) * 1e-9);
        }
        for (CallMeasure& m : measures_) {
            std::sort(m.actors.begin(), m.actors.end());
            m.actors.erase(std::unique(m.actors.begin(), m.actors.end()), m.actors.end());
        }
    }

    std::string render() {
        const std::string title = r_.pipeline.empty() ? std::string("run") : r_.pipeline;
        out_ +=
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            // No fetch of any kind: styles inline, no script, no image but data: ones.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; img-src data:\">\n<title>rop run: " +
            escape(title) + "</title>\n<style>\n" + kStyle + "</style></head>\n<body>\n<h1>" +
            escape(title) + "</h1>\n";
        summary();
        timeline();
        calls_table();
        latency();
        failures();
        if (!p_.estimate.empty()) estimate();
        out_ += "</body></html>\n";
        return std::move(out_);
    }

  private:
    static constexpr const char* kStyle =
        "body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}\n"
        "h2{margin-top:24px;font-size:16px}table{border-collapse:collapse}\n"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\n"
        "td:first-child,th:first-child,.text{text-align:left}\n"
        ".banner{padding:6px 10px;margin:8px 0;background:#fde2e2;border:1px solid #e15759}\n"
        ".note{color:#666}svg text{font:11px system-ui,sans-serif;fill:#333}\n";

    void summary() {
        out_ += "<section id=\"summary\">\n";
        if (r_.aborted) banner("Run aborted: " + r_.abort_reason);
        if (r_.interrupted) {
            banner("Run interrupted (" + r_.interrupt_reason + "): " + count(r_.unfinished_roots) +
                   " roots in flight left unfinished");
        }
        std::size_t counts[3] = {r_.omitted.ok, r_.omitted.dropped, r_.omitted.failed};
        std::size_t resumed = r_.omitted.resumed;
        for (const RootResult& root : r_.roots) {
            ++counts[static_cast<int>(root.status)];
            resumed += root.resumed;
        }
        out_ += "<table>\n";
        auto row = [&](const char* what, const std::string& value) {
            if (!value.empty()) {
                out_ += "<tr><th>" + std::string(what) + "</th><td class=\"text\">" + value +
                        "</td></tr>\n";
            }
        };
        row("pipeline", escape(r_.pipeline));
        row("rop", escape(r_.rop_version + (r_.rop_hash.empty() ? "" : " " + r_.rop_hash)));
        row("host", escape(r_.host));
        row("started", escape(r_.started_at));
        row("ended", escape(r_.ended_at));
        row("wall time", seconds(r_.wall_s));
        row("roots", count(r_.total_roots()) + " (" + count(counts[0]) + " ok, " +
                         count(counts[1]) + " dropped, " + count(counts[2]) + " failed, " +
                         count(resumed) + " resumed from the journal)");
        row("first root done", seconds(r_.time_to_first_root_s));
        row("peak roots in flight", count(r_.peak_inflight_roots));
        row("peak payload bytes", bytes(static_cast<double>(r_.peak_live_bytes)));
        if (p_.peak_rss_bytes) row("peak resident memory", bytes(double(p_.peak_rss_bytes)));
        row("batches", count(r_.batches.size()));
        out_ += "</table>\n</section>\n";
    }

    void banner(const std::string& text) {
        out_ += "<p class=\"banner\">" + escape(text) + "</p>\n";
    }

    // One row per Call (class timeline-row), a lane per actor in it, each lane its busy
    // intervals over the run's wall time: batches closer than a pixel or two are one rectangle.
    void timeline() {
        std::vector<std::vector<const BatchRecord*>> by_call(calls_.size());
        for (const BatchRecord& b : r_.batches) {
            if (b.call < calls_.size()) by_call[b.call].push_back(&b);
        }
        std::string rows;
        double y = kAxisH;
        std::size_t rects = 0;
        for (std::size_t c = 0; c < calls_.size(); ++c) {
            const std::vector<std::uint32_t>& actors = measures_[c].actors;
            const std::size_t lanes = std::clamp<std::size_t>(actors.size(), 1, kMaxLanes);
            const double height = 2 * kRowPad + lanes * (kLaneH + kLaneGap) - kLaneGap;
            rows += "<g class=\"timeline-row\" data-call=\"" + escape(calls_[c].name) +
                    "\" data-batches=\"" + count(measures_[c].batches) + "\" data-lanes=\"" +
                    count(lanes) + "\"><title>" + escape(calls_[c].name) + ": " +
                    count(actors.size()) + " actors ran its batches</title>\n";
            rows += "<rect x=\"0\" y=\"" + px(y) + "\" width=\"" + px(kLabelW + kPlotW) +
                    "\" height=\"" + px(height) + "\" fill=\"" + (c % 2 ? "#f4f4f4" : "#fff") +
                    "\"/>\n<text x=\"4\" y=\"" + px(y + kRowPad + 10) + "\">" +
                    escape(shorten(calls_[c].name)) + "</text>\n";
            if (actors.size() > kMaxLanes) {
                rows += "<text x=\"" + px(kLabelW - 4) + "\" y=\"" + px(y + height - kRowPad - 2) +
                        "\" text-anchor=\"end\">+" + count(actors.size() - kMaxLanes + 1) +
                        " actors</text>\n";
            }
            const double gap_px = std::max(1.0, kPlotW * double(lanes) / kMaxRects);
            std::vector<std::vector<const BatchRecord*>> by_lane(lanes);
            for (const BatchRecord* b : by_call[c]) {
                const auto at = std::lower_bound(actors.begin(), actors.end(), b->actor);
                by_lane[std::min<std::size_t>(at - actors.begin(), lanes - 1)].push_back(b);
            }
            for (std::size_t lane = 0; lane < lanes; ++lane) {
                const double lane_y = y + kRowPad + double(lane) * (kLaneH + kLaneGap);
                rects += draw_lane(by_lane[lane], lane_y, gap_px, color(c), rows);
            }
            rows += "</g>\n";
            y += height;
        }
        const double step = tick_step(span_s_);
        std::string axis;
        for (double t = 0; t <= span_s_ * 1.0001; t += step) {
            const double x = x_of(t);
            axis += "<line x1=\"" + px(x) + "\" x2=\"" + px(x) + "\" y1=\"" + px(kAxisH - 4) +
                    "\" y2=\"" + px(y) + "\" stroke=\"#ddd\"/><text x=\"" + px(x) + "\" y=\"" +
                    px(kAxisH - 8) + "\" text-anchor=\"middle\">" + seconds(t) + "</text>\n";
        }
        out_ +=
            "<section id=\"timeline\"><h2>Timeline</h2>\n<p class=\"note\">One row per Call, "
            "a lane per actor that ran its batches (past " +
            count(kMaxLanes - 1) +
            " actors the rest share the last lane); each rectangle is a busy interval over "
            "the run's " +
            seconds(span_s_) + ": batches less than a pixel or two apart are merged (" +
            count(r_.batches.size()) + " batches drawn as " + count(rects) +
            " rectangles).</p>\n<svg width=\"" + px(kLabelW + kPlotW + 20) + "\" height=\"" +
            px(y + 4) + "\">\n" + axis + rows + "</svg></section>\n";
    }

    double x_of(double t) const { return kLabelW + std::clamp(t / span_s_, 0.0, 1.0) * kPlotW; }

    static std::string shorten(const std::string& name) {
        return name.size() <= 30 ? name : name.substr(0, 29) + "...";
    }

    // The lane's batches as busy intervals: sorted by start, merged while the next one starts
    // within gap_px of the current one's end. Returns the rectangles drawn.
    std::size_t draw_lane(std::vector<const BatchRecord*>& batches, double y, double gap_px,
                          const char* fill, std::string& out) const {
        std::sort(batches.begin(), batches.end(), [](const BatchRecord* a, const BatchRecord* b) {
            return a->start_ns < b->start_ns;
        });
        std::size_t drawn = 0;
        for (std::size_t i = 0; i < batches.size();) {
            double t0 = double(batches[i]->start_ns) * 1e-9, t1 = double(batches[i]->end_ns) * 1e-9;
            std::uint64_t n = 0, grains = 0;
            bool stale = false;
            for (; i < batches.size(); ++i) {
                const double s = double(batches[i]->start_ns) * 1e-9;
                if (n > 0 && x_of(s) > x_of(t1) + gap_px) break;
                t1 = std::max(t1, double(batches[i]->end_ns) * 1e-9);
                ++n;
                grains += batches[i]->size;
                stale |= batches[i]->stale;
            }
            const double x0 = x_of(t0), width = std::max(1.0, x_of(t1) - x0);
            out += "<rect class=\"busy\" x=\"" + px(x0) + "\" y=\"" + px(y) + "\" width=\"" +
                   px(width) + "\" height=\"" + px(kLaneH) + "\" fill=\"" +
                   (stale ? "#e15759" : fill) + "\"><title>" + count(n) + " batches, " +
                   count(grains) + " Grains, " + seconds(t0) + " to " + seconds(t1) +
                   (stale ? ", abandoned ones among them" : "") + "</title></rect>\n";
            ++drawn;
        }
        return drawn;
    }

    // Per Call: batches, fill (the counters' mean, the record's histogram), busy time and
    // utilization.
    void calls_table() {
        out_ +=
            "<section id=\"calls\"><h2>Calls: batches and fill</h2>\n<table><tr><th>Call</th>"
            "<th>batches</th><th>Grains</th><th>batch cap</th><th>mean fill</th><th>fill "
            "histogram (0..100% of the cap)</th><th>busy</th><th>actors</th>"
            "<th>utilization</th><th>median batch</th></tr>\n";
        for (std::size_t c = 0; c < calls_.size(); ++c) {
            const CallMeasure& m = measures_[c];
            const CallCounters* k = c < r_.calls.size() ? &r_.calls[c] : nullptr;
            out_ += "<tr class=\"call\" data-call=\"" + escape(calls_[c].name) + "\"><td>" +
                    escape(calls_[c].name) + "</td><td>" + count(k ? k->batches : m.batches) +
                    "</td><td>" + count(k ? k->grains : m.grains) + "</td><td>" +
                    count(calls_[c].batch) + "</td><td>" + percent(k ? k->mean_batch_fill : 0) +
                    "</td><td>" + fill_histogram(m, c) + "</td><td>" + seconds(m.busy_s) +
                    "</td><td>" + count(calls_[c].actors) + "</td><td>" + percent(utilization(c)) +
                    "</td><td>" + seconds(k ? k->median_batch_s : 0) + "</td></tr>\n";
        }
        out_ += "</table></section>\n";
    }

    double utilization(std::size_t c) const {
        const double actors = std::max<double>(1, calls_[c].actors);
        return measures_[c].busy_s / (std::max(r_.wall_s, 1e-9) * actors);
    }

    std::string fill_histogram(const CallMeasure& m, std::size_t c) const {
        const std::uint64_t most = *std::max_element(std::begin(m.fill), std::end(m.fill));
        std::string svg = "<svg class=\"fill-hist\" width=\"120\" height=\"24\">";
        for (std::size_t b = 0; b < kFillBins; ++b) {
            if (m.fill[b] == 0) continue;
            const double h = 22.0 * double(m.fill[b]) / double(most);
            svg += "<rect x=\"" + px(double(b) * 12) + "\" y=\"" + px(23 - h) +
                   "\" width=\"11\" height=\"" + px(h) + "\" fill=\"" + color(c) + "\"><title>" +
                   count(b * 10) + "-" + count(b * 10 + 10) + "%: " + count(m.fill[b]) +
                   " batches</title></rect>";
        }
        return svg + "<line x1=\"0\" x2=\"120\" y1=\"23.5\" y2=\"23.5\" stroke=\"#999\"/></svg>";
    }

    // Time to commit: a histogram of the listed roots' latencies, or of the percentiles of the
    // report's sample (each 1% of the roots) when it only counted some.
    void latency() {
        out_ += "<section id=\"latency\"><h2>Time to commit (root latency)</h2>\n";
        const LatencySample sample = latencies(r_);
        if (sample.size() == 0) {
            out_ += "<p class=\"note\">No root ran in this run.</p></section>\n";
            return;
        }
        // Percentile p stands for the roots of ranks ceil((p-1)n/100)+1 .. ceil(pn/100): every
        // root once, exact up to 100 roots (each rank is some percentile's).
        const std::size_t n = sample.size();
        const double top = std::max(sample.max(), 1e-9);
        double bins[kLatencyBins] = {};
        for (std::size_t p = 1, below = 0; p <= 100; ++p) {
            const std::size_t rank = (p * n + 99) / 100;
            if (rank == below) continue;
            const double v = sample.percentile(p);
            bins[std::min(kLatencyBins - 1, static_cast<std::size_t>(v / top * kLatencyBins))] +=
                double(rank - below);
            below = rank;
        }
        const bool listed = n <= 100 && sample.exact();
        const double most = *std::max_element(std::begin(bins), std::end(bins));
        const double w = 600, h = 140, left = 40, bin_w = w / kLatencyBins;
        std::string svg = "<svg class=\"latency-hist\" width=\"" + px(left + w + 20) +
                          "\" height=\"" + px(h + 40) + "\">\n";
        for (std::size_t b = 0; b < kLatencyBins; ++b) {
            if (bins[b] == 0) continue;
            const double bh = h * bins[b] / most;
            svg += "<rect x=\"" + px(left + double(b) * bin_w) + "\" y=\"" + px(10 + h - bh) +
                   "\" width=\"" + px(bin_w - 1) + "\" height=\"" + px(bh) +
                   "\" fill=\"#4e79a7\"><title>" + seconds(top * double(b) / kLatencyBins) +
                   " to " + seconds(top * double(b + 1) / kLatencyBins) + ": " +
                   printf_string("%.0f", bins[b]) + " roots</title></rect>\n";
        }
        const double step = tick_step(top);
        for (double t = 0; t <= top * 1.0001; t += step) {
            svg += "<text x=\"" + px(left + t / top * w) + "\" y=\"" + px(h + 26) +
                   "\" text-anchor=\"middle\">" + seconds(t) + "</text>\n";
        }
        auto marker = [&](double t, const char* label, const char* dash) {
            const double x = left + std::min(t / top, 1.0) * w;
            svg += "<line x1=\"" + px(x) + "\" x2=\"" + px(x) + "\" y1=\"6\" y2=\"" + px(h + 12) +
                   "\" stroke=\"#e15759\" stroke-dasharray=\"" + dash + "\"/><text x=\"" +
                   px(x + 2) + "\" y=\"" + px(h + 38) + "\">" + label + "</text>\n";
        };
        marker(sample.percentile(50), "p50", "none");
        if (sample.size() >= 100) marker(sample.percentile(99), "p99", "none");
        if (p_.estimate.p50_commit_s) marker(*p_.estimate.p50_commit_s, "p50 predicted", "4 3");
        if (p_.estimate.p99_commit_s) marker(*p_.estimate.p99_commit_s, "p99 predicted", "4 3");
        svg += "<line x1=\"" + px(left) + "\" x2=\"" + px(left + w) + "\" y1=\"" + px(h + 10.5) +
               "\" y2=\"" + px(h + 10.5) + "\" stroke=\"#999\"/></svg>\n";
        out_ += "<p>" + count(sample.size()) + " roots: p50 " + seconds(sample.percentile(50)) +
                (sample.size() >= 100 ? ", p99 " + seconds(sample.percentile(99)) : "") + ", max " +
                seconds(sample.max()) +
                (listed ? "" : " (drawn from its percentiles, 1% of the roots each)") + "</p>\n" +
                svg + "</section>\n";
    }

    void failures() {
        FailureTally own;
        const FailureTally* tally = p_.failures;
        if (tally == nullptr) {
            for (const RootResult& r : r_.roots) own.add(r);
            tally = &own;
        }
        out_ += "<section id=\"failures\"><h2>Failures</h2>\n";
        if (tally->failed() == 0) {
            out_ += "<p class=\"note\">No root failed in this run.</p>\n";
        } else {
            out_ +=
                "<table class=\"failed-roots\"><tr><th>Call</th><th "
                "class=\"text\">reason</th><th>roots</th>"
                "</tr>\n";
            for (const FailureTally::Row& row : tally->rows()) {
                out_ += "<tr class=\"failure\"><td>" +
                        (row.call.empty() ? std::string("(no Call: the run)") : escape(row.call)) +
                        "</td><td class=\"text\">" +
                        (row.reason.empty() ? std::string("(other reasons)") : escape(row.reason)) +
                        "</td><td>" + count(row.roots) + "</td></tr>\n";
            }
            out_ += "</table>\n";
        }
        out_ +=
            "<h3>Per Call</h3><table class=\"call-failures\"><tr><th>Call</th><th>failed</th>"
            "<th>suppressed</th><th>retries (Grains)</th><th>infra retries (Grains)</th>"
            "<th>stale reports</th><th>stuck batches</th></tr>\n";
        for (std::size_t c = 0; c < r_.calls.size() && c < calls_.size(); ++c) {
            const CallCounters& k = r_.calls[c];
            out_ += "<tr><td>" + escape(calls_[c].name) + "</td><td>" + count(k.failed) +
                    "</td><td>" + count(k.suppressed) + "</td><td>" + count(k.retries) + " (" +
                    count(k.retried_items) + ")</td><td>" + count(k.infra_retries) + " (" +
                    count(k.infra_retried_items) + ")</td><td>" + count(k.stale_reports) +
                    "</td><td>" + count(k.stuck_batches) + "</td></tr>\n";
        }
        out_ += "</table></section>\n";
    }

    // Predicted vs measured: only what the estimate predicts, each beside what the run did.
    void estimate() {
        const RunEstimate& e = p_.estimate;
        out_ +=
            "<section id=\"estimate\"><h2>Predicted vs measured</h2>\n<table><tr><th></th>"
            "<th>predicted</th><th>measured</th><th>measured / predicted</th></tr>\n";
        auto row = [&](const std::string& what, std::optional<double> predicted,
                       std::optional<double> measured, std::string (*show)(double)) {
            if (!predicted) return;
            out_ += "<tr class=\"estimate\"><td>" + escape(what) + "</td><td>" + show(*predicted) +
                    "</td><td>" + (measured ? show(*measured) : std::string("-")) + "</td><td>" +
                    (measured && *predicted > 0 ? printf_string("%.2f", *measured / *predicted)
                                                : std::string("-")) +
                    "</td></tr>\n";
        };
        const LatencySample sample = latencies(r_);
        auto measured_percentile = [&](std::size_t p) -> std::optional<double> {
            if (sample.size() == 0 || (p == 99 && sample.size() < 100)) return std::nullopt;
            return sample.percentile(p);
        };
        row("makespan", e.makespan_s, r_.wall_s, seconds);
        row(p_.peak_rss_bytes ? "peak memory (resident)" : "peak memory (payloads)",
            e.peak_memory_bytes, double(p_.peak_rss_bytes ? p_.peak_rss_bytes : r_.peak_live_bytes),
            bytes);
        row("time to commit p50", e.p50_commit_s, measured_percentile(50), seconds);
        row("time to commit p99", e.p99_commit_s, measured_percentile(99), seconds);
        for (const CallEstimate& call : e.calls) {
            std::optional<std::size_t> c;
            for (std::size_t i = 0; i < calls_.size(); ++i) {
                if (calls_[i].name == call.call) c = i;
            }
            row(call.call + " busy", call.busy_s,
                c ? std::optional<double>(measures_[*c].busy_s) : std::nullopt, seconds);
            row(call.call + " utilization", call.utilization,
                c ? std::optional<double>(utilization(*c)) : std::nullopt, percent);
        }
        out_ += "</table></section>\n";
    }

    const RunPicture& p_;
    const RunReport& r_;
    std::vector<PictureCall> calls_;
    std::vector<CallMeasure> measures_;
    double span_s_ = 0;  // the timeline's width in seconds: the wall time, or the last batch's end
    std::string out_;
};

}  // namespace

std::vector<PictureCall> picture_calls(const Plan& plan, const std::vector<std::string>& names) {
    std::vector<PictureCall> calls;
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallOptions& o = plan.calls[c].options;
        calls.push_back({c < names.size() ? names[c] : plan.calls[c].name, std::max(1u, o.batch),
                         std::max(1u, o.actors)});
    }
    return calls;
}

void FailureTally::add(const RootResult& root) {
    if (root.status != RootStatus::Failed || root.resumed) return;
    ++failed_;
    std::pair<std::string, std::string> key{root.failed_call, root.reason.substr(0, kMaxReason)};
    if (counts_.size() >= kMaxRows && !counts_.count(key)) key.second.clear();  // other reasons
    ++counts_[key];
}

std::vector<FailureTally::Row> FailureTally::rows() const {
    std::vector<Row> rows;
    for (const auto& [key, n] : counts_) rows.push_back({key.first, key.second, n});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.roots > b.roots; });
    return rows;
}

std::string render_report_html(const RunPicture& picture) { return Page(picture).render(); }

std::uint64_t process_peak_rss_bytes() {
    struct rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

}  // namespace rop::runtime::detail

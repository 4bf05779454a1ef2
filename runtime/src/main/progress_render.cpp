// Progress lines from a Progress snapshot (pure), the terminal redraw and the plain form, and
// the warning about a stuck batch.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "cli_text.h"
#include "rop/runtime/pipeline_main.h"

namespace rop::runtime {

namespace {

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string format_rate(double per_s) {
    if (per_s >= 1e6) return fixed(per_s / 1e6, 1) + "M/s";
    if (per_s >= 1e4) return fixed(per_s / 1e3, 1) + "k/s";
    if (per_s >= 10) return fixed(per_s, 0) + "/s";
    return fixed(per_s, 1) + "/s";
}

std::string format_eta(double seconds) {
    const auto s = static_cast<long long>(std::ceil(seconds));
    char buf[64];
    if (s < 60) {
        std::snprintf(buf, sizeof buf, "%llds", s);
    } else if (s < 3600) {
        std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
    }
    return buf;
}

// A running time: "<1ms", "250ms", "4.2s" below 10 s, then as an ETA ("42s", "3m05s").
std::string format_running(double seconds) {
    if (seconds < 0.001) return "<1ms";
    if (seconds < 1) return fixed(seconds * 1000, 0) + "ms";
    if (seconds < 10) return fixed(seconds, 1) + "s";
    return format_eta(std::floor(seconds));
}

std::string pad_right(const std::string& s, std::size_t width) {
    return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}
std::string pad_left(const std::string& s, std::size_t width) {
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

// "ETA 21s", "done" when nothing is left, "ETA ?" when it cannot be told (unknown total, no
// rate yet, or a batch is stuck: the run cannot end before it does).
std::string eta_cell(double done, std::optional<double> total, double rate, bool stuck) {
    if (total && done >= *total) return "done";
    if (!total || rate <= 0 || stuck) return "ETA ?";
    return "ETA " + format_eta((*total - done) / rate);
}

// The header's ETA from estimate_remaining_s: "done", "ETA ?" as eta_cell says.
std::string run_eta_cell(const Progress& p, bool stuck, const RunPrediction* prediction) {
    if (p.roots_total && p.roots_done >= *p.roots_total) return "done";
    const std::optional<double> left =
        prediction ? estimate_remaining_s(p, *prediction) : estimate_remaining_s(p);
    if (!left || stuck) return "ETA ?";
    return "ETA " + format_eta(*left);
}

// "stuck: 1 batch 42s" / "stuck: 3 batches, longest 2m05s" for Call `call`, or "".
std::string stuck_cell(const std::vector<StuckBatch>& stuck, std::size_t call) {
    std::size_t count = 0;
    double longest = 0;
    for (const StuckBatch& s : stuck) {
        if (s.call != call) continue;
        ++count;
        longest = std::max(longest, s.running_s);
    }
    if (count == 0) return {};
    if (count == 1) return "stuck: 1 batch " + format_running(longest);
    return "stuck: " + std::to_string(count) + " batches, longest " + format_running(longest);
}

}  // namespace

namespace {

// Roots this run finished: Progress::work counts them apart from resumed ones; without resumed
// roots they are every root done (a snapshot may carry no work counts).
double run_roots_done(const Progress& p) {
    return static_cast<double>(p.roots_resumed == 0 ? p.roots_done : p.work.done_roots);
}

// Resumed roots the source has not reached yet: the journal's count less those already skipped
// (done, but not by this run).
double resumed_ahead(const Progress& p) {
    const double skipped = static_cast<double>(p.roots_done) - run_roots_done(p);
    return std::max(0.0, static_cast<double>(p.roots_resumed) - std::max(0.0, skipped));
}

// The roots this run runs: the total less the resumed ones.
double roots_to_run(const Progress& p, double total_roots) {
    return std::max(0.0, total_roots - static_cast<double>(p.roots_resumed));
}

// The run's Grains in all, estimated: those of the roots seen so far (finished, and in flight
// with the children their expands announced), and as many per root for the roots not admitted
// yet, less the resumed ones among them (they hold none). nullopt without Grain counts or a
// total.
std::optional<double> estimated_total_grains(const Progress& p) {
    const ProgressWork& w = p.work;
    if (!p.roots_total || w.sealed == 0) return std::nullopt;
    const std::size_t inflight =
        p.roots_admitted > p.roots_done ? p.roots_admitted - p.roots_done : 0;
    const double roots_seen = static_cast<double>(w.done_roots + inflight);
    if (roots_seen <= 0) return std::nullopt;
    const double seen = static_cast<double>(w.done_root_grains) +
                        std::max(w.inflight_estimate, static_cast<double>(w.inflight_grains));
    const double unseen_roots =
        std::max(0.0, static_cast<double>(*p.roots_total) - static_cast<double>(p.roots_admitted) -
                          resumed_ahead(p));
    return std::max(static_cast<double>(w.sealed), seen + unseen_roots * seen / roots_seen);
}

}  // namespace

std::optional<double> estimate_remaining_s(const Progress& p) {
    if (!p.roots_total || p.elapsed_s <= 0) return std::nullopt;
    const double total_roots = static_cast<double>(*p.roots_total);
    if (static_cast<double>(p.roots_done) >= total_roots) return 0.0;
    if (const std::optional<double> total = estimated_total_grains(p)) {
        const double sealed = static_cast<double>(p.work.sealed);
        return (*total - sealed) / (sealed / p.elapsed_s);
    }
    // By roots: those this run finished, against those it still has (resumed ones take none).
    if (run_roots_done(p) <= 0) return std::nullopt;
    const double rate = run_roots_done(p) / p.elapsed_s;
    const double left = total_roots - static_cast<double>(p.roots_done) - resumed_ahead(p);
    return std::max(0.0, left) / rate;
}

// A curve of rising x read at `x`: linear between its points, its last y past its end.
static double interpolate(const std::vector<std::pair<double, double>>& curve, double x) {
    for (std::size_t i = 1; i < curve.size(); ++i) {
        const auto& [x1, y1] = curve[i];
        if (x > x1) continue;
        const auto& [x0, y0] = curve[i - 1];
        return x1 > x0 ? y0 + (y1 - y0) * (x - x0) / (x1 - x0) : y1;
    }
    return curve.back().second;
}

// When the predicted run had done `share` of its work: the progress curve read at the shares
// within 0.05 of it, averaged. A wave of batches ends at one instant in the replay, so its curve
// climbs in steps that a real run, whose batches spread, crosses smoothly (B9: a quarter into a
// 64-actor run, -15% instead of -25%).
static double predicted_time_at(const std::vector<std::pair<double, double>>& curve, double share) {
    double sum = 0;
    int n = 0;
    for (int k = -5; k <= 5; ++k) {
        const double x = share + 0.01 * k;
        if (x < 0 || x > 1) continue;
        sum += interpolate(curve, x);
        ++n;
    }
    return n > 0 ? sum / n : interpolate(curve, share);
}

std::optional<double> estimate_remaining_s(const Progress& p, const RunPrediction& e) {
    const double total_roots = static_cast<double>(p.roots_total ? *p.roots_total : e.roots);
    if (total_roots > 0 && static_cast<double>(p.roots_done) >= total_roots) return 0.0;
    // Under --resume the estimate's work is that of the roots this run runs: its Grains, busy
    // time and curve shrink with them (the estimate was made for every root).
    const double to_run = roots_to_run(p, total_roots);
    const double resumed_scale = total_roots > 0 ? to_run / total_roots : 1;
    // The roots' share done, in flight ones half: how far a Call past its predicted Grains is.
    const std::size_t inflight =
        p.roots_admitted > p.roots_done ? p.roots_admitted - p.roots_done : 0;
    const double roots_share =
        to_run > 0 ? (run_roots_done(p) + 0.5 * static_cast<double>(inflight)) / to_run : 0;
    // The work the estimate predicted, corrected by the run's own count: the Grains its finished
    // roots had stand for the rest (as Progress::work extrapolates them), and outweigh the
    // estimate's as they outnumber the roots it counted (a 2% sample's mean fan-out can be 25%
    // off; a count pass over every root leaves little to correct, and the first roots to
    // finish are the small ones).
    double predicted_grains = 0;
    for (const PredictedCall& k : e.calls) predicted_grains += std::max(0.0, k.grains);
    predicted_grains *= resumed_scale;
    double scale = resumed_scale;
    if (const std::optional<double> counted = estimated_total_grains(p);
        counted && predicted_grains > 0 && p.work.done_roots > 0) {
        const double done = static_cast<double>(p.work.done_roots);
        const double trust = done / (done + static_cast<double>(std::max<std::size_t>(
                                                {1, e.sample_roots, e.counted_roots})));
        scale = resumed_scale * ((1 - trust) + trust * (*counted / predicted_grains));
    }
    double weight = 0, done_weight = 0;
    for (std::size_t c = 0; c < e.calls.size() && c < p.calls.size(); ++c) {
        const PredictedCall& k = e.calls[c];
        if (k.grains <= 0 || k.busy_s <= 0) continue;
        const double expected = k.grains * scale;
        const double done = static_cast<double>(p.calls[c].grains + p.calls[c].suppressed);
        double share = std::min(1.0, done / expected);
        if (done > expected) share = std::min(share, roots_share);
        weight += k.busy_s;
        done_weight += k.busy_s * share;
    }
    if (weight <= 0) return estimate_remaining_s(p);
    const double share = done_weight / weight;
    const double makespan = e.makespan_s * scale;
    const double prior = std::max(0.0, makespan - p.elapsed_s);
    if (share <= 0) return prior;
    const double trust = std::min(1.0, share / 0.2);  // the measured pace's, by a fifth done
    if (e.progress.size() >= 2) {
        // When the predicted run had done this share, and at what pace this run goes against
        // it: the time the prediction still had, at this run's pace. The curve knows what a
        // straight line does not: a slow start, a tail of a few large roots.
        const double predicted_at = scale * predicted_time_at(e.progress, share);
        if (predicted_at > 0) {
            const double pace = (1 - trust) + trust * (p.elapsed_s / predicted_at);
            return std::max(0.0, pace * (makespan - predicted_at));
        }
    }
    const double measured = p.elapsed_s * (1 - share) / share;
    return (1 - trust) * prior + trust * measured;
}

std::vector<ProgressCall> progress_calls(const Plan& plan) {
    std::vector<ProgressCall> calls;
    for (const CallSpec& c : plan.calls) calls.push_back({c.name, c.domain == 0});
    return calls;
}

std::vector<std::string> render_progress(const Progress& p, std::span<const ProgressCall> calls) {
    return render_progress(p, calls, 0);
}

std::string fit_width(const std::string& line, std::size_t width) {
    if (width == 0 || line.size() < width) return line;
    // Columns are counted as characters (UTF-8 lead bytes); ESC sequences are not used here.
    std::size_t columns = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const auto byte = static_cast<unsigned char>(line[i]);
        if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
        if (++columns == width) return line.substr(0, i);
    }
    return line;
}

std::vector<std::string> render_progress(const Progress& p, std::span<const ProgressCall> calls,
                                         std::size_t roots_failed,
                                         const RunPrediction* prediction) {
    const double elapsed = p.elapsed_s;
    const bool finished = p.roots_total && p.roots_done >= *p.roots_total;
    // Roots counted as finished work: done ones in full, those in flight as half done.
    const std::size_t inflight =
        p.roots_admitted > p.roots_done ? p.roots_admitted - p.roots_done : 0;
    const double root_units =
        static_cast<double>(p.roots_done) + 0.5 * static_cast<double>(inflight);
    const bool stuck = !p.stuck.empty();
    const std::optional<double> grains_total = estimated_total_grains(p);

    std::vector<std::string> lines;
    {
        std::string head = "roots " + std::to_string(p.roots_done) + "/" +
                           (p.roots_total ? std::to_string(*p.roots_total) : "?") + " done, " +
                           (roots_failed > 0 ? std::to_string(roots_failed) + " failed, " : "") +
                           std::to_string(inflight) + " in flight, " + fixed(elapsed, 1) + "s";
        head += ", " + run_eta_cell(p, stuck, prediction);
        if (stuck && !finished) {
            head += " (" + std::to_string(p.stuck.size()) +
                    (p.stuck.size() == 1 ? " batch" : " batches") + " stuck)";
        }
        lines.push_back(std::move(head));
    }

    std::size_t name_width = 0;
    for (std::size_t i = 0; i < p.calls.size(); ++i) {
        const std::string& name = i < calls.size() ? calls[i].name : p.calls[i].name;
        name_width = std::max(name_width, name.size());
    }
    std::vector<std::array<std::string, 5>> cells;
    for (std::size_t i = 0; i < p.calls.size(); ++i) {
        const CallCounters& c = p.calls[i];
        const bool per_root = i < calls.size() && calls[i].per_root;
        const std::uint64_t done = c.grains + c.suppressed;
        const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
        std::optional<double> total;
        std::string total_text = "?";
        if (finished) {
            total = static_cast<double>(done);
            total_text = std::to_string(done);
        } else if (per_root && p.roots_total) {
            total = static_cast<double>(*p.roots_total);
            total_text = std::to_string(*p.roots_total);
        } else if (grains_total || (p.roots_total && root_units > 0)) {
            // The Call keeps its share of the Grains sealed so far; without Grain counts, of
            // the roots done (those in flight half done).
            const double scale = grains_total ? *grains_total / static_cast<double>(p.work.sealed)
                                              : static_cast<double>(*p.roots_total) / root_units;
            const double estimate =
                std::max(static_cast<double>(done), std::round(static_cast<double>(done) * scale));
            total_text = "~" + fixed(estimate, 0);
            // An estimate is never "done" before the run is.
            if (estimate > static_cast<double>(done)) total = estimate;
        }
        const std::string name = i < calls.size() ? calls[i].name : c.name;
        // With the result store: how many of the done Grains it answered (--cache).
        const std::string hits =
            c.cache_hits ? "  " + std::to_string(c.cache_hits) + " from the store" : "";
        cells.push_back({name, std::to_string(done) + "/" + total_text, format_rate(rate),
                         eta_cell(static_cast<double>(done), total, rate, stuck) + hits,
                         stuck_cell(p.stuck, i)});
    }
    std::size_t count_width = 0;
    std::size_t rate_width = 0;
    for (const auto& row : cells) {
        count_width = std::max(count_width, row[1].size());
        rate_width = std::max(rate_width, row[2].size());
    }
    for (const auto& row : cells) {
        lines.push_back("  " + pad_right(row[0], name_width) + "  " +
                        pad_left(row[1], count_width) + "  " + pad_left(row[2], rate_width) + "  " +
                        row[3] + (row[4].empty() ? "" : "  " + row[4]));
    }
    return lines;
}

std::string redraw_progress(std::span<const std::string> lines, std::size_t previous) {
    std::string out;
    // Cursor to the first column of the line `previous` lines up, then rewrite each line; lines
    // left over from a longer previous drawing are cleared.
    if (previous > 0) out += "\x1b[" + std::to_string(previous) + "F";
    for (const std::string& line : lines) out += "\x1b[2K" + line + "\n";
    for (std::size_t i = lines.size(); i < previous; ++i) out += "\x1b[2K\n";
    return out;
}

std::string plain_progress(const Progress& progress, std::span<const std::string> lines) {
    const std::string stamp = "[" + fixed(progress.elapsed_s, 1) + "s] ";
    std::string out;
    for (const std::string& line : lines) {
        const std::size_t start = line.find_first_not_of(' ');
        out += stamp + (start == std::string::npos ? line : line.substr(start)) + "\n";
    }
    return out;
}

std::string stuck_warning(const StuckBatch& stuck, const std::string& call_name) {
    constexpr std::size_t kRootsShown = 5;
    std::string roots;
    for (std::size_t i = 0; i < stuck.roots.size() && i < kRootsShown; ++i) {
        roots += (i ? ", " : "") + stuck.roots[i];
    }
    if (stuck.roots.size() > kRootsShown) {
        roots += " and " + std::to_string(stuck.roots.size() - kRootsShown) + " more";
    }
    std::string out = "call '" + call_name + "': a batch of " + std::to_string(stuck.grains) +
                      (stuck.grains == 1 ? " Grain" : " Grains") + " (" +
                      (stuck.roots.size() == 1 ? "root " : "roots ") + roots + ") has run for " +
                      format_running(stuck.running_s);
    if (stuck.median_s > 0) {
        out += ", the Call's median batch takes " + format_running(stuck.median_s);
    } else {
        out += " and no batch of this Call has finished yet";
    }
    out += "; it may be stuck.";
    if (stuck.timeout.count() > 0) {
        out += " It is abandoned and replayed at the Call's timeout (" +
               cli::format_duration(stuck.timeout.count()) + ").";
    } else {
        // --set takes any one of a multi-output Call's names.
        const std::string set_name = call_name.substr(0, call_name.find(','));
        out +=
            " The Call has no timeout: set one with `timeout 30s` on the Call in the .rop "
            "file, or run with --set " +
            set_name +
            ".timeout=30s, and a batch running past "
            "it is abandoned and replayed.";
    }
    return out;
}

}  // namespace rop::runtime

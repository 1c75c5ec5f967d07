#pragma once
// Datasets: generated (counter-based, element i depends only on (seed, i) where the
// distribution allows it) or read from a file. Every dataset says what it is.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/vocabulary.hpp"

namespace accsum {

// Names accepted by --dist: uniform [0,1), uniform-sym [-1,1), loguniform (|x| log-uniform over
// `range`, random signs), illcond (GenSum / GenDot of Ogita-Rump-Oishi with target `cond`),
// and the edge-case sets used by verify and the tests: subnormal (subnormal-heavy),
// overflow-cancel (terms near DBL_MAX that cancel), ties (exact sums halfway between doubles),
// specials (NaN / +-inf / +-0 mixed in), huge (|x| in [2^990, 2^1001), beyond the range where
// Dekker's Split works, with finite sums for n < 2^20).
// Details (datasets/elements.hpp, datasets/illcond.hpp): element i of uniform, uniform-sym,
// loguniform, subnormal and specials depends on (seed, i) only (a shorter dataset is a prefix
// of a longer one); overflow-cancel and ties shuffle a structured array, element i depends on
// (seed, n, i); illcond is sequential. For "dot", x and y come from different streams; the
// dynamic range of loguniform is carried by x (y = +-(1 + w)). specials mixes in, by seed % 6:
// 1 NaN/+inf/-inf, 2 +inf, 3 -inf, 4 +inf and -inf, 5 NaN, 0 only +-0 (+-0 always; every
// enabled kind occurs below index 64). ties with seed % 4 == 0 puts the tie at the bottom of
// the range (dot: between two subnormals). ties needs n >= 2.
const std::vector<std::string>& dist_names();

// Throws UsageError on an unknown dist, n <= 0 or too large for memory, range < 1, cond < 1.
Dataset generate(const GenSpec& spec);

// Elements [begin, end) of generate(spec) written to x[0 .. end-begin) (and y with spec.with_y; y
// may be null without): any slice can be made on its own (threads, MPI ranks) and equals the
// same slice of the whole. Throws UsageError for illcond, which is inherently sequential.
void generate_range(const GenSpec& spec, int64_t begin, int64_t end, double* x, double* y);

// How to make element i of a counter-based dataset (datasets/elements.hpp), for host threads
// and GPU threads alike. Throws UsageError for illcond.
ElementRecipe recipe(const GenSpec& spec);
// Elements [begin, end) of a recipe, as generate_range(spec, ...) makes them (y: dot only).
void generate_range(const ElementRecipe& r, int64_t begin, int64_t end, double* x, double* y);
// The same on the host's threads (ACCSUM_THREADS or all), for large slices.
void generate_range_threaded(const ElementRecipe& r, int64_t begin, int64_t end, double* x, double* y);

// The dataset generate(spec) would make, described by its recipe and holding no array: the
// algorithms that run on it make their elements by global index (AlgoEntry::makes_own_data),
// so n may exceed host memory. Counter-based sums and dots only.
Dataset generate_by_index(const GenSpec& spec);

// True for the distributions generate_range can slice (all but illcond).
bool counter_based(const std::string& dist);

// Throws UsageError when `spec` is invalid (what generate checks before allocating).
void validate(const GenSpec& spec);

// x (and y) in a pseudo-random order, the same for the same n: block-shuffled, threaded.
Dataset permuted_copy(const Dataset& d);

// ---- files: .npy (float64/float32, little-endian, C order), raw little-endian float64 (.bin,
// .raw), text (.txt, .csv: one number per line or comma/space separated; hex floats accepted).
// A dot dataset is a (2, n) array: row 0 is x, row 1 is y (raw: x then y; text: two columns).
enum class FileFormat { npy, raw, text };
FileFormat format_from_path(const std::string& path);  // by extension; throws UsageError
std::string file_extension(const std::string& path);   // ".npy" (lower case), or "" when none
// Writes atomically (temporary file + rename); dtype "f8" or "f4" for npy (f4 rounds to float).
void write_dataset(const std::string& path, const Dataset& d, const std::string& dtype = "f8");
// The bytes write_dataset writes (format from path's extension), handed to `emit` in pieces;
// for writers that own the file (the CLI's output policy, app/output.hpp).
void encode_dataset(const std::string& path, const Dataset& d, const std::string& dtype,
                    const std::function<void(const void*, size_t)>& emit);
// Throws UsageError for a missing, truncated, malformed or wrong-dtype file. `family` labels the
// dataset (and the messages); with_y: a (2, n) array, x and y (else one vector x).
Dataset read_dataset(const std::string& path, const std::string& family, bool with_y);

}  // namespace accsum

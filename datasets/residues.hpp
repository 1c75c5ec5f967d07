#pragma once
// Datasets of the moddot family: two vectors of residues in [0, p) (stored exactly as doubles
// in Dataset::x, y) and a prime p with p - 1 < 2^52 (Dataset::data["p"], decimal).
#include <cstdint>
#include <functional>
#include <string>

#include "datasets/dataset.hpp"

namespace accsum {

// A prime just below 2^50 (2^50 - 27), the default modulus.
constexpr uint64_t kModdotDefaultPrime = 1125899906842597ull;

// Parses and checks a modulus: a decimal integer p >= 2, p - 1 < 2^52, prime
// (GMP's mpz_probab_prime_p, 50 rounds). Throws UsageError naming `what` otherwise.
uint64_t parse_prime(const std::string& text, const std::string& what = "--p");
// The dataset's modulus (Params "p", checked as above; the default when absent).
uint64_t prime_of(const Params& data);
// The same without the primality test (for data made by this family's generator or reader,
// which checked it): cheap enough for every slice of a timed run.
uint64_t checked_prime_of(const Params& data);

// Generators: uniform (residues uniform in [0, p)), worst (every entry p - 1), sparse (x has
// one nonzero in 64 on average, y uniform). Element i depends on (seed, p, i) only.
const std::vector<std::string>& residue_dist_names();
Dataset generate_residues(const GenSpec& spec);
// Elements [begin, end) of generate_residues(spec) (threads, ranks).
void generate_residues_range(const GenSpec& spec, uint64_t p, int64_t begin, int64_t end, double* x, double* y);

// Files: .npy int64 '<i8' or uint64 '<u8' of shape (n, 2) (columns x, y) or (2, n) (rows x,
// y); text (.txt, .csv) with two integers per line, '#' comments and an optional line
// "# p = <prime>"; or two one-column files "x.npy,y.npy" (shape (n,) or (n, 1); text: one
// integer per line). The modulus: options["p"] (--p), else the text file's line, else the
// default; both given must agree. Every entry must be an integer in [0, p), x and y of one
// length; UsageError (one line) otherwise.
Dataset read_residues(const std::string& spec, const Params& options = {});
// Writes .npy ('<i8', (n, 2)) or text (with the "# p = " line) through emit.
void encode_residues(const std::string& path, const Dataset& d, const std::function<void(const void*, size_t)>& emit);

}  // namespace accsum

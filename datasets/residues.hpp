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

// Generators: uniform (residues uniform in [0, p)), worst (every entry p - 1), sparse (x has
// one nonzero in 64 on average, y uniform). Element i depends on (seed, p, i) only.
const std::vector<std::string>& residue_dist_names();
Dataset generate_residues(const GenSpec& spec);
// Elements [begin, end) of generate_residues(spec) (threads, ranks).
void generate_residues_range(const GenSpec& spec, uint64_t p, int64_t begin, int64_t end, double* x, double* y);

// Files: .npy int64 '<i8' or uint64 '<u8' of shape (2, n) (row 0 x, row 1 y); text (.txt,
// .csv) with two integers per line, '#' comments, and an optional line "# p = <prime>"
// giving the modulus (else the default). Every entry must be an integer in [0, p).
Dataset read_residues(const std::string& path);
// Writes .npy ('<i8', (2, n)) or text (with the "# p = " line) through emit.
void encode_residues(const std::string& path, const Dataset& d, const std::function<void(const void*, size_t)>& emit);

}  // namespace accsum

// Test plugin (tests/test_hostile_text.cpp) whose texts and behaviour test what the tool prints
// and keeps:
//   ctl-sum       its summary, parameter help, choices and error message hold control characters
//                 (ESC, BEL, line breaks): every line the tool prints must show them escaped;
//   late-oom-sum  sums the first dataset it is given and throws std::bad_alloc on any other (a
//                 table's second row): the rows completed before must still be written.
#include <accsum/plugin.h>

#include <cstring>
#include <new>

namespace {

const char kHostileText[] = "\x1b[31mred\x07\nsecond line\rback";

int ctl_sum(const accsum_call* call) {
  std::strncpy(call->message, kHostileText, call->message_size - 1);
  call->message[call->message_size - 1] = 0;
  return 7;
}

int late_oom_sum(const accsum_call* call) {
  static double first_x0 = 0;
  static bool seen = false;
  if (call->n > 0 && seen && call->x[0] != first_x0) throw std::bad_alloc();
  if (!seen && call->n > 0) first_x0 = call->x[0], seen = true;
  double s = 0;
  for (int64_t i = 0; i < call->n; ++i) s += call->x[i];
  call->result[0] = s;
  return 0;
}

const char* const kModes[] = {"plain", "\x1b[1mbold\x1b[0m", nullptr};
const accsum_param kModeParam[] = {{"mode", "how to \x1b[31mfail\x07\nfor real", kModes, 0, 0, "plain"}};

const accsum_algorithm kAlgorithms[] = {
    {"ctl-sum", "a summary with \x1b]0;title\x07 and a\nline break", ACCSUM_FAMILY_SUM, ACCSUM_BACKEND_CPU,
     ACCSUM_CLAIM_NONE, 0, nullptr, kModeParam, 1, ctl_sum},
    {"late-oom-sum", "throws on its second dataset", ACCSUM_FAMILY_SUM, ACCSUM_BACKEND_CPU, ACCSUM_CLAIM_NONE, 0,
     nullptr, nullptr, 0, late_oom_sum},
};

}  // namespace

extern "C" ACCSUM_PLUGIN_EXPORT const accsum_plugin* accsum_plugin_register(int) {
  static const accsum_plugin plugin = {ACCSUM_PLUGIN_ABI_VERSION, "hostile-text", kAlgorithms, 2};
  return &plugin;
}

/* Recursive summation, left to right: the honest compute the test plugins start from. */
#pragma once
#include <stdint.h>

#include <accsum/plugin.h>

static int recursive_sum(const accsum_call* call) {
  double s = 0.0;
  for (int64_t i = 0; i < call->n; ++i) s += call->x[i];
  call->result[0] = s;
  return 0;
}

/*
 * real.h - the core's real type.
 *
 * Everything numeric in the core is td_real. The default build makes it
 * float; building with -DTD_REAL_DOUBLE makes it double, which is how the
 * suite runs gradient checks in double precision (make double).
 */
#ifndef TD_REAL_H
#define TD_REAL_H

#include <float.h>

#ifdef TD_REAL_DOUBLE
typedef double td_real;
#define TD_REAL_NAME "double"
#define TD_REAL_EPSILON DBL_EPSILON
#define TD_REAL_MAX DBL_MAX
#else
typedef float td_real;
#define TD_REAL_NAME "float"
#define TD_REAL_EPSILON FLT_EPSILON
#define TD_REAL_MAX FLT_MAX
#endif

#endif

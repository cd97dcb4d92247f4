/*
 * fixedsum.h - a dot product in double whose order of additions is fixed
 * and vectorises: 8 partial sums, partial q taking the elements
 * j = q mod 8 in ascending order, added in one fixed tree at the end. No
 * compiler, vector width or thread count changes that order (C11 mode
 * never fuses a multiply and an add; nothing here is reassociated), while
 * the 8 independent chains fit vector registers, which one running sum,
 * a chain of dependent adds, does not.
 */
#ifndef TD_FIXEDSUM_H
#define TD_FIXEDSUM_H

#include <stddef.h>

#include "hd.h"
#include "real.h"

enum { TD_FIXEDSUM_PARTS = 8 };

/* sum over j < n of a[j] b[j], in double, in the order above. */
TD_HD double td_dot_fixed(const td_real *TD_RESTRICT a, const td_real *TD_RESTRICT b, size_t n)
{
	double part[TD_FIXEDSUM_PARTS] = {0};
	size_t j = 0;

	for (; j + TD_FIXEDSUM_PARTS <= n; j += TD_FIXEDSUM_PARTS)
		for (size_t q = 0; q < TD_FIXEDSUM_PARTS; q++)
			part[q] += (double)a[j + q] * (double)b[j + q];
	for (; j < n; j++)
		part[j % TD_FIXEDSUM_PARTS] += (double)a[j] * (double)b[j];
	return ((part[0] + part[4]) + (part[2] + part[6])) +
	       ((part[1] + part[5]) + (part[3] + part[7]));
}

/*
 * td_dot_fixed(p, c, n) with p[j] = a[j] b[j] formed in td_real, without
 * storing p: the same bits.
 */
TD_HD double td_dot3_fixed(const td_real *TD_RESTRICT a, const td_real *TD_RESTRICT b,
				   const td_real *TD_RESTRICT c, size_t n)
{
	double part[TD_FIXEDSUM_PARTS] = {0};
	size_t j = 0;

	for (; j + TD_FIXEDSUM_PARTS <= n; j += TD_FIXEDSUM_PARTS)
		for (size_t q = 0; q < TD_FIXEDSUM_PARTS; q++)
			part[q] += (double)(td_real)(a[j + q] * b[j + q]) * (double)c[j + q];
	for (; j < n; j++)
		part[j % TD_FIXEDSUM_PARTS] += (double)(td_real)(a[j] * b[j]) * (double)c[j];
	return ((part[0] + part[4]) + (part[2] + part[6])) +
	       ((part[1] + part[5]) + (part[3] + part[7]));
}

#endif

/*
 * fleet_check.c - aiwi_fleet_check: the fleet's invariants (fleet.h) on its
 * live state, in a build configured with --enable-checks.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone.
 */
#if AIW_CHECKS
#endif /* AIW_CHECKS */

/*
 * site_params.h - the parameters of [site]: their indexes in the kind's
 * table (site_params.c).  Private to lib/site/site*.c.
 */
#ifndef AIW_SITE_SITE_PARAMS_H
#define AIW_SITE_SITE_PARAMS_H

#include "core/internal.h"

enum {
	P_PUE,
	P_PRICE,
	P_GPUS_PER_RACK,
	P_MARGIN,
	P_CAP_PRICE,
	P_CAPACITY,
	P_FAC_CAPEX,
	P_FAC_LIFE,
	P_GRID,
	P_RAMP_W1,
	P_RAMP_W2,
	P_RAMP_W3,
	P_DROP_FRACTION,
	P_DROP_WINDOW,
	P_WELCH_SEG,
	P_BAND_LO,
	P_BAND_HI,
	P_RACKS_PER_ROW,
	P_ROWS_PER_HALL,
	P_PRICE_DAILY,
	P_PRICE_FILE,
	P_CARBON,
	P_CARBON_DAILY,
	P_CARBON_FILE,
	P_STORAGE,
	P_ST_CAPACITY,
	P_ST_POWER,
	P_ST_EFF,
	P_ST_SOC0,
	P_ST_LIMIT,
	P_ST_RAMP,
	P_GPU_BUDGET,
	P_BUDGET_RULE,
	P_CAPPING,
	P_CAPPING_HIGH,
	P_CAPPING_LOW,
	P_CAPPING_REACTION,
	P_CAPPING_STEP,
	P_CAPPING_MIN,
	P_DR_START,
	P_DR_DURATION,
	P_DR_PERIOD,
	P_DR_NOTICE,
	P_DR_REDUCTION,
	P_DR_REDUCTION_W,
	P_NPARAMS
};

/* The parameter table of the site kind (P_NPARAMS entries) and its modes. */
extern const aiwi_param_def aiwi_site_params[];
extern const aiwi_param_mode aiwi_site_modes[];

#endif /* AIW_SITE_SITE_PARAMS_H */

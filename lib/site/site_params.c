/*
 * site_params.c - the parameter table of [site]: name, key, type, default,
 * unit, range and documentation of each setting, with its source; the
 * settings read only in a mode (aiwi_site_modes).  The model is site.c.
 */
#include "site/site_params.h"

#include <stddef.h>

const aiwi_param_def aiwi_site_params[] = {
	[P_PUE] = {"pue", "site.pue", AIW_PT_REAL, "1.3", "1", 1, 5, NULL, 0,
	           "power usage effectiveness: facility power / IT power", 0},
	[P_PRICE] = {"electricity_price", "site.electricity_price", AIW_PT_MONEY, "0.08", "USD/kWh",
	             0, 100, NULL, AIW_PF_EXCL_MIN,
	             "price of electricity per kWh of facility energy", 0},
	[P_GPUS_PER_RACK] = {"gpus_per_rack", "site.gpus_per_rack", AIW_PT_INT, "32", "1", 1, 1024,
	                     NULL, 0, "GPUs per rack, for rack-level peaks", 0},
	[P_MARGIN] = {"provisioning_margin", "site.provisioning_margin", AIW_PT_REAL, "0.1", "1", 0,
	              10, NULL, 0, "margin over the aggregate peak for recommended provisioning",
	              0},
	[P_CAP_PRICE] = {"capacity_price", "site.capacity_price", AIW_PT_MONEY, NULL,
	                 "USD/kW-month", 0, 1e6, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                 "price of provisioned facility power per kW and month (none: not charged)",
	                 0},
	[P_CAPACITY] = {"capacity", "site.capacity", AIW_PT_POWER, NULL, "W", 0, 1e12, NULL,
	                AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                "contracted facility power (none: the recommended provisioning of the run); "
	                "a run whose facility peak exceeds it is not capped: it warns and "
	                "capacity_headroom_w is negative",
	                0},
	[P_FAC_CAPEX] = {"facility_capex", "site.facility_capex", AIW_PT_MONEY, "0", "USD/MW", 0,
	                 1e12, NULL, 0,
	                 "capital cost of the facility (building, power and cooling plant) per MW "
	                 "of provisioned facility power, amortised over facility_life "
	                 "(facility_cost_usd); 0: not charged",
	                 0},
	/* 15 years: the service life of a building's mechanical plant (HVAC 15,
	 * electrical panels 20 years in building useful-life tables; the
	 * shell's US tax life is 39 years): aiworkload(7) "Cost" */
	[P_FAC_LIFE] = {"facility_life", "site.facility_life", AIW_PT_DURATION, "15y", "s", 0,
	                3.2e9, NULL, AIW_PF_EXCL_MIN,
	                "amortisation period of facility_capex", 0},
	/* the site as the grid sees it (grid.c, aiworkload(7) "Grid"): off,
	 * every result is as without it */
	[P_GRID] = {"grid", "site.grid", AIW_PT_ENUM, "off", "", 0, 1, "off|on", 0,
	            "streaming grid statistics of the site IT power curve at the sample "
	            "interval: ramps, load steps, drops and the Welch spectrum (site.grid_* "
	            "metrics)",
	            0},
	/* 1 s, 1 min and 15 min: the spans of a fast step, of the per-minute ramp
	 * limits grid operators write for large loads, and of a demand interval
	 * (a utility meters demand over 15 min) */
	[P_RAMP_W1] = {"grid_ramp_window_1", "site.grid_ramp_window_1", AIW_PT_DURATION, "1s", "s",
	               0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	               "first ramp window: |P(t) - P(t - window)| / window at every sample, its "
	               "maximum and 99th percentile (grid_ramp_1_*); rounded to whole sample "
	               "intervals, at least one",
	               0},
	[P_RAMP_W2] = {"grid_ramp_window_2", "site.grid_ramp_window_2", AIW_PT_DURATION, "1min",
	               "s", 0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	               "second ramp window (grid_ramp_2_*)", 0},
	[P_RAMP_W3] = {"grid_ramp_window_3", "site.grid_ramp_window_3", AIW_PT_DURATION, "15min",
	               "s", 0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	               "third ramp window (grid_ramp_3_*)", 0},
	[P_DROP_FRACTION] = {"grid_drop_fraction", "site.grid_drop_fraction", AIW_PT_REAL, NULL, "1",
	                     0, 1, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                     "a load drop event: the IT power falls more than this fraction "
	                     "below its highest sample within grid_drop_window before "
	                     "(grid_drop_events counts them; none: not counted)",
	                     0},
	[P_DROP_WINDOW] = {"grid_drop_window", "site.grid_drop_window", AIW_PT_DURATION, "1s", "s",
	                   0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	                   "the span a load drop is measured over (grid_drop_max_fraction, "
	                   "grid_drop_events); rounded to whole sample intervals, at least one",
	                   0},
	/* 1024 samples: at 100 ms a 102.4 s segment, bins of 0.0098 Hz, below
	 * the band's 0.1 Hz; longer segments resolve finer and average fewer */
	[P_WELCH_SEG] = {"grid_welch_segment", "site.grid_welch_segment", AIW_PT_INT, "1024", "1",
	                 8, 4194304, NULL, 0,
	                 "samples per segment of the Welch spectrum (Hann window, 50 % overlap): "
	                 "frequency resolution 1 / (segment x sim.sample_interval)",
	                 0},
	/* 0.1-20 Hz: the swings of synchronous training that the grid's
	 * electromechanical modes may amplify (Choukse et al., "Power
	 * stabilization for AI training datacenters", Microsoft, OpenAI and
	 * NVIDIA, arXiv:2508.14318, 2025) */
	[P_BAND_LO] = {"grid_band_low", "site.grid_band_low", AIW_PT_RATE, "0.1Hz", "1/s", 0, 1e6,
	               NULL, 0, "lower edge of the band whose share of the spectrum is reported", 0},
	[P_BAND_HI] = {"grid_band_high", "site.grid_band_high", AIW_PT_RATE, "20Hz", "1/s", 0, 1e6,
	               NULL, AIW_PF_EXCL_MIN,
	               "upper edge of that band (grid_band_share, grid_band_rms_w)", 0},
	/* the power hierarchy above the racks: no default (a site's own layout) */
	[P_RACKS_PER_ROW] = {"racks_per_row", "site.racks_per_row", AIW_PT_INT, NULL, "1", 1, 1e6,
	                     NULL, AIW_PF_NONE,
	                     "racks per row (a row's busway or PDU): rows are filled with the "
	                     "racks in component order, and each row's peak and the diversity "
	                     "of racks within rows and rows within halls are reported (none: "
	                     "not)",
	                     0},
	[P_ROWS_PER_HALL] = {"rows_per_hall", "site.rows_per_hall", AIW_PT_INT, NULL, "1", 1, 1e6,
	                     NULL, AIW_PF_NONE,
	                     "rows per hall (a hall's switchboard), with racks_per_row (none: "
	                     "one hall)",
	                     0},
	/* a price that changes with the hour (tariff.c, aiworkload(7) "Price and
	 * carbon"): none, the constant electricity_price as before */
	[P_PRICE_DAILY] = {"electricity_price_daily", "site.electricity_price_daily", AIW_PT_STRING,
	                   NULL, "USD/kWh", 0, 0, NULL, AIW_PF_NONE,
	                   "electricity price through the day: N prices (USD/kWh, comma or blank "
	                   "separated) for N equal parts of each day from midnight (t = 0), e.g. 24 "
	                   "hourly prices; replaces electricity_price (none: the constant price)",
	                   0},
	[P_PRICE_FILE] = {"electricity_price_file", "site.electricity_price_file", AIW_PT_STRING,
	                  NULL, "", 0, 0, NULL, AIW_PF_NONE | AIW_PF_PATH,
	                  "electricity price as a series: CSV of TIME,PRICE rows (TIME since the "
	                  "start, seconds or with a unit, e.g. 13h; PRICE in USD/kWh), each price "
	                  "holding until the next row's time, the last to the end; replaces "
	                  "electricity_price (none: the constant price)",
	                  0},
	/* grid carbon intensity: none, no emissions figures */
	[P_CARBON] = {"carbon_intensity", "site.carbon_intensity", AIW_PT_REAL, NULL, "g/kWh", 0,
	              1e4, NULL, AIW_PF_NONE,
	              "grid carbon intensity of facility energy, grams of CO2-equivalent per kWh "
	              "(emissions_kg; none: no emissions figures)",
	              0},
	[P_CARBON_DAILY] = {"carbon_intensity_daily", "site.carbon_intensity_daily", AIW_PT_STRING,
	                    NULL, "g/kWh", 0, 0, NULL, AIW_PF_NONE,
	                    "carbon intensity through the day: N values (g/kWh) for N equal parts "
	                    "of each day from midnight, as electricity_price_daily",
	                    0},
	[P_CARBON_FILE] = {"carbon_intensity_file", "site.carbon_intensity_file", AIW_PT_STRING,
	                   NULL, "", 0, 0, NULL, AIW_PF_NONE | AIW_PF_PATH,
	                   "carbon intensity as a series: CSV of TIME,VALUE rows (g/kWh), as "
	                   "electricity_price_file",
	                   0},
	/* energy storage between the site and the grid (storage.c, aiworkload(7)
	 * "Energy storage"): off, every result is as without it */
	[P_STORAGE] = {"storage", "site.storage", AIW_PT_ENUM, "off", "", 0, 2,
	               "off|peak_shaving|ramp_limit", 0,
	               "a battery between the site and the grid, run at each sample interval: "
	               "peak_shaving holds the grid's draw to storage_grid_limit, ramp_limit its "
	               "rate of change to storage_ramp_limit",
	               0},
	[P_ST_CAPACITY] = {"storage_capacity", "site.storage_capacity", AIW_PT_ENERGY, NULL, "J", 0,
	                   1e16, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                   "usable energy of the battery (e.g. 10MWh)", 0},
	/* 4 hours: the utility-scale battery of NREL's Annual Technology
	 * Baseline (ATB 2023, "Utility-Scale Battery Storage", 4-hour) */
	[P_ST_POWER] = {"storage_power", "site.storage_power", AIW_PT_POWER, NULL, "W", 0, 1e12,
	                NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                "charge and discharge rating of the battery (none: storage_capacity / 4 h, "
	                "NREL ATB's 4-hour utility-scale battery)",
	                0},
	/* 85 %: NREL ATB 2023's round-trip efficiency for utility-scale
	 * lithium-ion storage */
	[P_ST_EFF] = {"storage_efficiency", "site.storage_efficiency", AIW_PT_REAL, "0.85", "1", 0,
	              1, NULL, AIW_PF_EXCL_MIN,
	              "round-trip efficiency, split evenly between charge and discharge (NREL "
	              "ATB 2023, utility-scale lithium-ion: 85 %)",
	              0},
	[P_ST_SOC0] = {"storage_initial_charge", "site.storage_initial_charge", AIW_PT_REAL, "0.5",
	               "1", 0, 1, NULL, 0, "state of charge at the start, a fraction of capacity", 0},
	[P_ST_LIMIT] = {"storage_grid_limit", "site.storage_grid_limit", AIW_PT_POWER, NULL, "W", 0,
	                1e13, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                "peak_shaving: the facility power the grid should not see exceeded (none: "
	                "site.capacity)",
	                0},
	[P_ST_RAMP] = {"storage_ramp_limit", "site.storage_ramp_limit", AIW_PT_REAL, NULL, "W/s", 0,
	               1e12, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	               "ramp_limit: the largest rate of change of the grid's draw, in W/s of "
	               "facility power (e.g. 1e6/60 for 1 MW per minute)",
	               0},
	/* a GPU budget shared by the serving fleets' autoscalers (budget.c,
	 * doc/inference.md "A GPU budget shared by fleets"): none, every
	 * result is as without it */
	[P_GPU_BUDGET] = {"gpu_budget", "site.gpu_budget", AIW_PT_INT, NULL, "1", 0, 1e9, NULL,
	                  AIW_PF_NONE,
	                  "GPUs shared by every [inference] fleet: the replicas they hold (loading, "
	                  "ready, draining) never exceed it; an autoscaler's scale-up beyond the "
	                  "room left is denied in whole or in part by budget_rule (none: no budget)",
	                  0},
	[P_BUDGET_RULE] = {"budget_rule", "site.budget_rule", AIW_PT_ENUM, "priority", "", 0, 2,
	                   "priority|proportional|weighted", 0,
	                   "how scale-ups asked at one instant share the room: priority, highest "
	                   "inference budget_priority first; proportional, in proportion to the GPUs "
	                   "asked; weighted, max-min fair by inference budget_weight; shares rounded "
	                   "down to whole replicas, the rest by largest remainder",
	                   0},
	/* the capping controller (capping.c, aiworkload(7) "Capping and demand
	 * response"): two thresholds and a reaction time, as POLCA (Patel et
	 * al., arXiv:2308.12908, ASPLOS 2024) and Meta's Thunderbolt run them;
	 * off, every result is as without it.  The thresholds' and levels'
	 * defaults are the library's, not a published policy's */
	[P_CAPPING] = {"capping", "site.capping", AIW_PT_ENUM, "off", "", 0, 1, "off|on", 0,
	               "a power capping controller at each sample tick: facility power above "
	               "capping_high x site.capacity for capping_reaction lowers the GPU power cap "
	               "of the lowest capping_priority by capping_step of the TDP; below "
	               "capping_low x site.capacity for capping_reaction raises it again",
	               0},
	[P_CAPPING_HIGH] = {"capping_high", "site.capping_high", AIW_PT_REAL, "0.98", "1", 0, 10,
	                    NULL, AIW_PF_EXCL_MIN,
	                    "the controller's high threshold, a fraction of site.capacity", 0},
	[P_CAPPING_LOW] = {"capping_low", "site.capping_low", AIW_PT_REAL, "0.9", "1", 0, 10, NULL,
	                   AIW_PF_EXCL_MIN,
	                   "the release threshold, a fraction of site.capacity (at most "
	                   "capping_high: the band between them is the hysteresis)",
	                   0},
	[P_CAPPING_REACTION] = {"capping_reaction", "site.capping_reaction", AIW_PT_DURATION, "0",
	                        "s", 0, 3.2e9, NULL, 0,
	                        "how long the power must stay above (below) a threshold before "
	                        "the controller acts, and between two of its actions; counted "
	                        "in whole sample intervals (0: at the first tick)",
	                        0},
	[P_CAPPING_STEP] = {"capping_step", "site.capping_step", AIW_PT_REAL, "0.1", "1", 0, 1,
	                    NULL, AIW_PF_EXCL_MIN,
	                    "each action lowers (raises) a group's cap by this fraction of its GPUs' "
	                    "TDP", 0},
	[P_CAPPING_MIN] = {"capping_min", "site.capping_min", AIW_PT_REAL, "0.5", "1", 0, 1, NULL,
	                   AIW_PF_EXCL_MIN,
	                   "the deepest cap, a fraction of the TDP (the levels are 1 - n "
	                   "capping_step down to it)",
	                   0},
	[P_DR_START] = {"demand_response_start", "site.demand_response_start", AIW_PT_DURATION, NULL,
	                "s", 0, 3.2e9, NULL, AIW_PF_NONE,
	                "a demand-response event's window starts here (none: no event); the "
	                "controller holds the facility power to the target from the notice on",
	                0},
	[P_DR_DURATION] = {"demand_response_duration", "site.demand_response_duration",
	                   AIW_PT_DURATION, "1h", "s", 0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	                   "the event's window length", 0},
	[P_DR_PERIOD] = {"demand_response_period", "site.demand_response_period", AIW_PT_DURATION,
	                 NULL, "s", 0, 3.2e9, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                 "repeat the event with this period (e.g. 1d: a daily window; none: once)",
	                 0},
	[P_DR_NOTICE] = {"demand_response_notice", "site.demand_response_notice", AIW_PT_DURATION,
	                 "0", "s", 0, 3.2e9, NULL, 0,
	                 "the event is announced this long before its window: the baseline is the "
	                 "facility power's interval average at the announcement, and the "
	                 "controller starts there",
	                 0},
	[P_DR_REDUCTION] = {"demand_response_reduction", "site.demand_response_reduction",
	                    AIW_PT_REAL, NULL, "1", 0, 1, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                    "the reduction asked, a fraction of the baseline (or "
	                    "demand_response_reduction_w)",
	                    0},
	[P_DR_REDUCTION_W] = {"demand_response_reduction_w", "site.demand_response_reduction_w",
	                      AIW_PT_POWER, NULL, "W", 0, 1e13, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                      "the reduction asked in W of facility power", 0},
};

/* grid statistics' settings: read only with grid = on */
const aiwi_param_mode aiwi_site_modes[] = {
	{"grid_ramp_window_1", "grid=on"}, {"grid_ramp_window_2", "grid=on"},
	{"grid_ramp_window_3", "grid=on"}, {"grid_drop_fraction", "grid=on"},
	{"grid_drop_window", "grid=on"},   {"grid_welch_segment", "grid=on"},
	{"grid_band_low", "grid=on"},      {"grid_band_high", "grid=on"},
	{"storage_capacity", "storage=peak_shaving|ramp_limit"},
	{"storage_power", "storage=peak_shaving|ramp_limit"},
	{"storage_efficiency", "storage=peak_shaving|ramp_limit"},
	{"storage_initial_charge", "storage=peak_shaving|ramp_limit"},
	{"storage_grid_limit", "storage=peak_shaving"},
	{"storage_ramp_limit", "storage=ramp_limit"},
	{"capping_high", "capping=on"},
	{"capping_low", "capping=on"},
	{"capping_reaction", "capping=on"},
	{"capping_step", "capping=on"},
	{"capping_min", "capping=on"},
	{"demand_response_start", "capping=on"},
	{"demand_response_duration", "capping=on"},
	{"demand_response_period", "capping=on"},
	{"demand_response_notice", "capping=on"},
	{"demand_response_reduction", "capping=on"},
	{"demand_response_reduction_w", "capping=on"},
	{NULL, NULL},
};

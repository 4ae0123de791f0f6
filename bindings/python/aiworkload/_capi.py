"""Low level: find and load libaiworkload, check its version, and give every
public C function its ctypes signature from ONE table (SIGNATURES).

The table is the binding's contract with include/aiworkload.h: the test
suite parses the header and fails when a public function is missing here or
when a prototype and its entry disagree (argument names, count or types).
Functions returning aiw_status get an errcheck that turns a negative status
into an AiwError subclass carrying the C message (aiw_sim_errmsg for the
functions that take a simulation, aiw_strerror otherwise).

Nothing in this module is public API: use the names exported by the
aiworkload package.
"""

import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, c_char_p, c_double, c_int, c_size_t,
                    c_uint, c_uint64, c_void_p)

from .errors import AiwError, LibraryError, error_class

# ABI this package was written against: the library's major must be equal
# and its minor at least this (functions are only ever appended).
ABI_MAJOR = 0
ABI_MINOR = 1


class aiw_sim(ctypes.Structure):
    """Opaque simulation handle (struct aiw_sim)."""


class aiw_sweep(ctypes.Structure):
    """Opaque sweep handle (struct aiw_sweep)."""


SIM = POINTER(aiw_sim)
SWEEP = POINTER(aiw_sweep)


class aiw_profile(ctypes.Structure):
    """Opaque measured-profile handle."""


PROFILE = POINTER(aiw_profile)


class aiw_plan(ctypes.Structure):
    """Opaque serving-plan handle."""


PLAN = POINTER(aiw_plan)
STATUS = "aiw_status"  # marker: c_int restype + errcheck

# Callback types.  The simulation pointer of a callback arrives as a plain
# address (c_void_p) so that the trampolines can look the owner up cheaply.
EVENT_FN = CFUNCTYPE(None, c_void_p, c_double, c_void_p)
PROGRESS_FN = CFUNCTYPE(c_int, c_void_p, c_double, c_double, c_void_p)
SAMPLE_FN = CFUNCTYPE(None, c_void_p, c_double, POINTER(c_double), c_size_t, c_void_p)
SWEEP_FN = CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
SWEEP_PROGRESS_FN = CFUNCTYPE(c_int, c_void_p, c_size_t, c_size_t, c_void_p)
DIVERSITY_PROGRESS_FN = CFUNCTYPE(c_int, c_size_t, c_size_t, c_void_p)
CAPACITY_PROGRESS_FN = CFUNCTYPE(c_int, c_size_t, c_size_t, c_double, c_int, c_void_p)
PLAN_PROGRESS_FN = CFUNCTYPE(c_int, c_void_p, c_size_t, c_size_t, c_void_p)

def _nul_guard(f, cname, idx):
    """f, refusing with InvalidArgument a text argument (at the positions idx)
    that holds a NUL byte: C would see only the text before it, silently
    ("1\\x0099" would set 1)."""
    def call(*args):
        for i in idx:
            v = args[i] if i < len(args) else None
            if isinstance(v, (bytes, str)) and (b"\0" if isinstance(v, bytes) else "\0") in v:
                from .errors import InvalidArgument
                shown = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
                raise InvalidArgument(-1, "AIW_EINVAL", "%s: argument %s %r holds a NUL byte at "
                                      "offset %d, where C text ends"
                                      % (cname, SIGNATURES[cname][1][i][0], shown,
                                         shown.index("\0")), cname)
        return f(*args)
    call.__name__ = cname
    return call


PD = POINTER(c_double)
PZ = POINTER(c_size_t)
PU64 = POINTER(c_uint64)
PSTR = POINTER(c_char_p)

# --------------------------------------------------------------------------
# The signature table: C name -> (restype, [(argument name, ctype), ...]),
# in header order.  Pointer arguments are outputs (except callbacks, char
# buffers and void * payloads).
# --------------------------------------------------------------------------
SIGNATURES = {
    # status codes and version
    "aiw_strerror": (c_char_p, [("status", c_int)]),
    "aiw_status_name": (c_char_p, [("status", c_int)]),
    "aiw_version": (c_uint, []),
    "aiw_version_string": (c_char_p, []),
    "aiw_default_scenario": (c_char_p, []),
    # simulation object
    "aiw_sim_create": (STATUS, [("out", POINTER(SIM)), ("seed", c_uint64)]),
    "aiw_sim_free": (None, [("sim", SIM)]),
    "aiw_sim_errmsg": (c_char_p, [("sim", SIM)]),
    "aiw_sim_reset": (STATUS, [("sim", SIM)]),
    "aiw_sim_set": (STATUS, [("sim", SIM), ("name", c_char_p), ("value", c_char_p)]),
    "aiw_sim_set_double": (STATUS, [("sim", SIM), ("name", c_char_p), ("value", c_double)]),
    "aiw_sim_get": (STATUS, [("sim", SIM), ("name", c_char_p), ("buf", c_char_p),
                             ("len", c_size_t)]),
    "aiw_sim_get_double": (STATUS, [("sim", SIM), ("name", c_char_p), ("out", PD)]),
    "aiw_sim_add_component": (STATUS, [("sim", SIM), ("kind", c_char_p), ("name", c_char_p)]),
    "aiw_sim_component_count": (STATUS, [("sim", SIM), ("out", PZ)]),
    "aiw_sim_component": (STATUS, [("sim", SIM), ("i", c_size_t), ("kind", PSTR), ("name", PSTR)]),
    "aiw_sim_load_file": (STATUS, [("sim", SIM), ("path", c_char_p)]),
    "aiw_sim_load_string": (STATUS, [("sim", SIM), ("text", c_char_p), ("origin", c_char_p)]),
    "aiw_sim_run": (STATUS, [("sim", SIM)]),
    "aiw_sim_run_until": (STATUS, [("sim", SIM), ("t", c_double)]),
    "aiw_sim_now": (STATUS, [("sim", SIM), ("out", PD)]),
    "aiw_sim_set_progress": (STATUS, [("sim", SIM), ("fn", PROGRESS_FN), ("payload", c_void_p),
                                      ("every", c_double)]),
    "aiw_sim_set_sample_callback": (STATUS, [("sim", SIM), ("fn", SAMPLE_FN),
                                             ("payload", c_void_p)]),
    "aiw_sim_schedule": (STATUS, [("sim", SIM), ("t", c_double), ("fn", EVENT_FN),
                                  ("payload", c_void_p), ("out_handle", PU64)]),
    "aiw_sim_cancel": (STATUS, [("sim", SIM), ("handle", c_uint64)]),
    "aiw_sim_pending": (STATUS, [("sim", SIM), ("out", PZ)]),
    # results
    "aiw_sim_metric": (STATUS, [("sim", SIM), ("name", c_char_p), ("out", PD)]),
    "aiw_sim_metric_count": (STATUS, [("sim", SIM), ("out", PZ)]),
    "aiw_sim_metric_name": (STATUS, [("sim", SIM), ("i", c_size_t), ("out", PSTR)]),
    "aiw_sim_warning_count": (STATUS, [("sim", SIM), ("out", PZ)]),
    "aiw_sim_warning": (STATUS, [("sim", SIM), ("i", c_size_t), ("out", PSTR)]),
    "aiw_sim_input_count": (STATUS, [("sim", SIM), ("out", PZ)]),
    "aiw_sim_input": (STATUS, [("sim", SIM), ("i", c_size_t), ("component", PSTR),
                               ("key", PSTR), ("path", PSTR)]),
    "aiw_sim_series_count": (STATUS, [("sim", SIM), ("out", PZ)]),
    "aiw_sim_series_name": (STATUS, [("sim", SIM), ("i", c_size_t), ("out", PSTR)]),
    "aiw_sim_series_unit": (STATUS, [("sim", SIM), ("name", c_char_p), ("out", PSTR)]),
    "aiw_sim_series_length": (STATUS, [("sim", SIM), ("name", c_char_p), ("out", PZ)]),
    "aiw_sim_series_copy": (STATUS, [("sim", SIM), ("name", c_char_p), ("t", PD), ("v", PD),
                                     ("cap", c_size_t), ("n", PZ)]),
    "aiw_sim_write_csv": (STATUS, [("sim", SIM), ("path", c_char_p)]),
    "aiw_sim_write_json": (STATUS, [("sim", SIM), ("path", c_char_p)]),
    # parameter registry
    "aiw_param_count": (STATUS, [("out", PZ)]),
    "aiw_param_info": (STATUS, [("i", c_size_t), ("name", PSTR), ("type", PSTR), ("def", PSTR),
                                ("unit", PSTR), ("min", PD), ("max", PD), ("choices", PSTR),
                                ("doc", PSTR)]),
    "aiw_param_flags": (STATUS, [("i", c_size_t), ("out", POINTER(c_uint))]),
    "aiw_param_mode": (STATUS, [("i", c_size_t), ("out", PSTR)]),
    "aiw_param_find": (STATUS, [("name", c_char_p), ("out", PZ)]),
    # metric catalogue
    "aiw_metric_count": (STATUS, [("out", PZ)]),
    "aiw_metric_info": (STATUS, [("i", c_size_t), ("name", PSTR), ("label", PSTR),
                                 ("unit", PSTR), ("doc", PSTR), ("prom", PSTR),
                                 ("prom_type", PSTR), ("flags", POINTER(c_uint))]),
    "aiw_curve_count": (STATUS, [("out", PZ)]),
    "aiw_curve_info": (STATUS, [("i", c_size_t), ("name", PSTR), ("unit", PSTR),
                                ("doc", PSTR)]),
    "aiw_parse_value": (STATUS, [("kind", c_char_p), ("text", c_char_p), ("out", PD),
                                 ("errbuf", c_char_p), ("errlen", c_size_t)]),
    # more writers (export.c)
    "aiw_sim_write_prometheus": (STATUS, [("sim", SIM), ("path", c_char_p)]),
    "aiw_sim_write_promtest": (STATUS, [("sim", SIM), ("path", c_char_p),
                                        ("rule_files", c_char_p)]),
    "aiw_sim_write_svg": (STATUS, [("sim", SIM), ("path", c_char_p), ("title", c_char_p)]),
    "aiw_sim_write_html": (STATUS, [("sim", SIM), ("path", c_char_p)]),
    "aiw_sim_grid_spectrum": (STATUS, [("sim", SIM), ("freq_hz", PD), ("psd", PD),
                                       ("cap", c_size_t), ("nbins", PZ)]),
    "aiw_sim_write_openmetrics": (STATUS, [("sim", SIM), ("path", c_char_p),
                                           ("start", c_double)]),
    # hardware catalog (hw/gpu.c)
    "aiw_catalog_gpu_count": (STATUS, [("out", PZ)]),
    "aiw_catalog_gpu_name": (STATUS, [("i", c_size_t), ("out", PSTR)]),
    "aiw_catalog_gpu_value": (STATUS, [("gpu", c_char_p), ("field", c_char_p), ("out", PD)]),
    "aiw_catalog_gpu_source": (STATUS, [("gpu", c_char_p), ("field", c_char_p),
                                        ("out", PSTR)]),
    "aiw_catalog_gpu_field": (STATUS, [("i", c_size_t), ("name", PSTR), ("unit", PSTR),
                                       ("doc", PSTR)]),
    "aiw_catalog_link_count": (STATUS, [("out", PZ)]),
    "aiw_catalog_link_name": (STATUS, [("i", c_size_t), ("out", PSTR)]),
    "aiw_catalog_link_value": (STATUS, [("link", c_char_p), ("field", c_char_p), ("out", PD)]),
    "aiw_catalog_link_field": (STATUS, [("i", c_size_t), ("name", PSTR), ("unit", PSTR),
                                        ("doc", PSTR)]),
    # sizing calculators (sizing.c)
    "aiw_size_training_preset": (STATUS, [("preset", c_char_p), ("bytes_per_param", PD)]),
    "aiw_size_training_preset_name": (STATUS, [("i", c_size_t), ("out", PSTR)]),
    "aiw_size_training_memory": (STATUS, [("params", c_double), ("bytes_per_param", c_double),
                                          ("out", PD)]),
    "aiw_size_activations": (STATUS, [("layers", c_double), ("seq_len", c_double),
                                      ("micro_batch", c_double), ("hidden", c_double),
                                      ("heads", c_double), ("tensor_parallel", c_double),
                                      ("recompute", c_char_p), ("out", PD)]),
    "aiw_size_activations_per_gpu": (STATUS, [("layers", c_double), ("seq_len", c_double),
                                              ("micro_batch", c_double), ("hidden", c_double),
                                              ("heads", c_double),
                                              ("tensor_parallel", c_double),
                                              ("sequence_parallel", c_int),
                                              ("pipeline_parallel", c_double),
                                              ("virtual_stages", c_double),
                                              ("micro_batches", c_double),
                                              ("recompute", c_char_p), ("out", PD)]),
    "aiw_size_zero_state": (STATUS, [("params", c_double), ("data_parallel", c_double),
                                     ("zero_stage", c_int), ("weight_bytes", c_double),
                                     ("grad_bytes", c_double), ("optimizer_bytes", c_double),
                                     ("out", PD)]),
    "aiw_size_inference_weights": (STATUS, [("params", c_double), ("weight_bits", c_double),
                                            ("out", PD)]),
    "aiw_size_kv_cache": (STATUS, [("layers", c_double), ("kv_heads", c_double),
                                   ("head_dim", c_double), ("kv_bits", c_double),
                                   ("tokens", c_double), ("sequences", c_double),
                                   ("out", PD)]),
    "aiw_size_max_sequences": (STATUS, [("mem_bytes", c_double), ("weight_bytes", c_double),
                                        ("kv_bytes_per_sequence", c_double),
                                        ("headroom", c_double), ("out", PD)]),
    "aiw_size_min_gpus": (STATUS, [("gpu", c_char_p), ("bytes", c_double),
                                   ("headroom", c_double), ("out", PD)]),
    "aiw_size_training_flops": (STATUS, [("params", c_double), ("tokens", c_double),
                                         ("out", PD)]),
    "aiw_size_training_time": (STATUS, [("flops", c_double), ("gpu", c_char_p),
                                        ("gpus", c_double), ("mfu", c_double), ("out", PD)]),
    # measured serving profiles (profile.c)
    "aiw_profile_create": (STATUS, [("out", POINTER(PROFILE))]),
    "aiw_profile_free": (None, [("profile", PROFILE)]),
    "aiw_profile_errmsg": (c_char_p, [("profile", PROFILE)]),
    "aiw_profile_set": (STATUS, [("profile", PROFILE), ("name", c_char_p), ("value", c_double)]),
    "aiw_profile_read": (STATUS, [("profile", PROFILE), ("path", c_char_p)]),
    "aiw_profile_group_count": (STATUS, [("profile", PROFILE), ("out", PZ)]),
    "aiw_profile_group_name": (STATUS, [("profile", PROFILE), ("i", c_size_t), ("name", PSTR),
                                        ("gpu", PSTR)]),
    "aiw_profile_term_name": (STATUS, [("i", c_size_t), ("out", PSTR)]),
    "aiw_profile_datasheet": (STATUS, [("profile", PROFILE), ("gpu", c_char_p),
                                       ("phase", c_char_p), ("coef", PD), ("n", c_size_t)]),
    "aiw_profile_fit": (STATUS, [("profile", PROFILE), ("gpu", c_char_p), ("phase", c_char_p),
                                 ("coef", PD), ("stderr_out", PD), ("n", c_size_t)]),
    "aiw_profile_row_count": (STATUS, [("profile", PROFILE), ("out", PZ)]),
    "aiw_profile_row": (STATUS, [("profile", PROFILE), ("i", c_size_t), ("gpu", PSTR),
                                 ("phase", PSTR), ("tp", PD), ("batch", PD), ("prompt", PD),
                                 ("context", PD), ("measured_s", PD)]),
    "aiw_profile_predict": (STATUS, [("profile", PROFILE), ("row", c_size_t), ("coef", PD),
                                     ("n", c_size_t), ("out", PD)]),
    # collectives (collective.c)
    "aiw_allreduce_time": (STATUS, [("algo", c_char_p), ("bytes", c_double),
                                    ("ranks", c_double), ("gpus_per_node", c_double),
                                    ("alpha_intra", c_double), ("bw_intra", c_double),
                                    ("alpha_inter", c_double), ("bw_inter", c_double),
                                    ("slow_link_factor", c_double), ("out", PD)]),
    "aiw_busbw": (STATUS, [("bytes", c_double), ("ranks", c_double), ("seconds", c_double),
                           ("out", PD)]),
    # site studies
    "aiw_site_diversity_sweep": (STATUS, [("scenario", c_char_p), ("total_gpus", c_double),
                                          ("steps", c_size_t), ("share", PD),
                                          ("diversity", PD), ("provisioned_w", PD),
                                          ("peak_w", PD), ("sum_of_peaks_w", PD),
                                          ("errbuf", c_char_p), ("errlen", c_size_t)]),
    "aiw_site_diversity_shares": (STATUS, [("scenario", c_char_p), ("total_gpus", c_double),
                                           ("shares", PD), ("n", c_size_t), ("out", PD),
                                           ("ncolumns", c_size_t),
                                           ("progress", DIVERSITY_PROGRESS_FN),
                                           ("payload", c_void_p), ("errbuf", c_char_p),
                                           ("errlen", c_size_t)]),
    # fleet capacity (capacity.c)
    "aiw_inference_capacity": (STATUS, [("sim", SIM), ("component", c_char_p),
                                        ("settings", POINTER(c_char_p)), ("nsettings", c_size_t),
                                        ("out", PD), ("ncolumns", c_size_t),
                                        ("progress", CAPACITY_PROGRESS_FN),
                                        ("payload", c_void_p)]),
    # training studies (scaling.c)
    "aiw_training_scaling": (STATUS, [("sim", SIM), ("component", c_char_p),
                                      ("gpu_counts", PD), ("n", c_size_t), ("weak", c_int),
                                      ("step_time_s", PD), ("efficiency", PD)]),
    # sweeps (sweep.c)
    "aiw_sweep_create": (STATUS, [("out", POINTER(SWEEP)), ("scenario_path", c_char_p),
                                  ("scenario_text", c_char_p)]),
    "aiw_sweep_free": (None, [("sw", SWEEP)]),
    "aiw_sweep_errmsg": (c_char_p, [("sw", SWEEP)]),
    "aiw_sweep_axis": (STATUS, [("sw", SWEEP), ("param", c_char_p), ("values_csv", c_char_p)]),
    "aiw_sweep_point_file": (STATUS, [("sw", SWEEP), ("path", c_char_p)]),
    "aiw_sweep_set_replications": (STATUS, [("sw", SWEEP), ("r", c_size_t)]),
    "aiw_sweep_set_metrics": (STATUS, [("sw", SWEEP), ("metrics_csv", c_char_p)]),
    "aiw_sweep_set_seed": (STATUS, [("sw", SWEEP), ("seed", c_uint64)]),
    "aiw_sweep_set_jobs": (STATUS, [("sw", SWEEP), ("jobs", c_uint)]),
    "aiw_sweep_set_keep_going": (STATUS, [("sw", SWEEP), ("keep_going", c_int)]),
    "aiw_sweep_set_callback": (STATUS, [("sw", SWEEP), ("fn", SWEEP_FN), ("payload", c_void_p)]),
    "aiw_sweep_set_progress": (STATUS, [("sw", SWEEP), ("fn", SWEEP_PROGRESS_FN),
                                        ("payload", c_void_p)]),
    "aiw_sweep_prepare": (STATUS, [("sw", SWEEP)]),
    "aiw_sweep_run": (STATUS, [("sw", SWEEP)]),
    "aiw_sweep_stop": (None, [("sw", SWEEP)]),
    "aiw_sweep_npoints": (STATUS, [("sw", SWEEP), ("out", PZ)]),
    "aiw_sweep_nparams": (STATUS, [("sw", SWEEP), ("out", PZ)]),
    "aiw_sweep_param_name": (STATUS, [("sw", SWEEP), ("i", c_size_t), ("out", PSTR)]),
    "aiw_sweep_point_value": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("i", c_size_t),
                                       ("out", PSTR)]),
    "aiw_sweep_nmetrics": (STATUS, [("sw", SWEEP), ("out", PZ)]),
    "aiw_sweep_metric_name": (STATUS, [("sw", SWEEP), ("i", c_size_t), ("out", PSTR)]),
    "aiw_sweep_task_seed": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("rep", c_size_t),
                                     ("out", PU64)]),
    "aiw_sweep_run_task": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("rep", c_size_t),
                                    ("metrics_out", PD)]),
    "aiw_sweep_store": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("rep", c_size_t),
                                 ("metrics", PD)]),
    "aiw_sweep_result": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("metric", c_size_t),
                                  ("mean", PD), ("sd", PD), ("ci95_half", PD), ("n", PZ)]),
    "aiw_sweep_point_status": (STATUS, [("sw", SWEEP), ("point", c_size_t),
                                        ("status", POINTER(c_int)), ("message", PSTR)]),
    "aiw_sweep_replication": (STATUS, [("sw", SWEEP), ("point", c_size_t), ("rep", c_size_t),
                                       ("metric", c_size_t), ("out", PD)]),
    "aiw_sweep_write_csv": (STATUS, [("sw", SWEEP), ("path", c_char_p)]),
    "aiw_sweep_write_replications_csv": (STATUS, [("sw", SWEEP), ("path", c_char_p)]),
    "aiw_sweep_write_html": (STATUS, [("sw", SWEEP), ("path", c_char_p)]),
    # serving plan (studies/plan.c)
    "aiw_plan_create": (STATUS, [("out", POINTER(PLAN)), ("scenario_path", c_char_p),
                                 ("scenario_text", c_char_p), ("component", c_char_p)]),
    "aiw_plan_free": (None, [("plan", PLAN)]),
    "aiw_plan_errmsg": (c_char_p, [("plan", PLAN)]),
    "aiw_plan_set": (STATUS, [("plan", PLAN), ("key", c_char_p), ("value", c_char_p)]),
    "aiw_plan_grid": (STATUS, [("plan", PLAN), ("param", c_char_p), ("values_csv", c_char_p)]),
    "aiw_plan_run": (STATUS, [("plan", PLAN)]),
    "aiw_plan_set_progress": (STATUS, [("plan", PLAN), ("fn", PLAN_PROGRESS_FN),
                                       ("payload", c_void_p)]),
    "aiw_plan_stats": (STATUS, [("plan", PLAN), ("out", PZ), ("n", c_size_t)]),
    "aiw_plan_row": (STATUS, [("plan", PLAN), ("i", c_size_t), ("out", PD),
                              ("ncolumns", c_size_t), ("gpu", PSTR), ("snippet", PSTR)]),
    "aiw_plan_verdict": (STATUS, [("plan", PLAN), ("out", PSTR)]),
    "aiw_plan_write_csv": (STATUS, [("plan", PLAN), ("path", c_char_p)]),
    "aiw_plan_write_html": (STATUS, [("plan", PLAN), ("path", c_char_p)]),
    "aiw_plan_run_part": (STATUS, [("plan", PLAN), ("part", c_size_t), ("nparts", c_size_t),
                                   ("out", POINTER(c_void_p)), ("len", PZ)]),
    "aiw_plan_merge": (STATUS, [("plan", PLAN), ("parts", POINTER(c_void_p)), ("lens", PZ),
                                ("nparts", c_size_t)]),
    # autoscaler replay (studies/replay.c)
    "aiw_autoscale_replay": (STATUS, [("policy", c_char_p), ("settings", POINTER(c_char_p)),
                                      ("nsettings", c_size_t), ("metrics_path", c_char_p),
                                      ("out_path", c_char_p), ("syncs", POINTER(c_uint64)),
                                      ("err", c_char_p), ("errlen", c_size_t)]),
}

# Functions whose pointer arguments are arrays (not single outputs): they
# have hand-written wrappers, never generated ones.
ARRAY_FUNCTIONS = {"aiw_sim_series_copy", "aiw_site_diversity_sweep",
                   "aiw_site_diversity_shares", "aiw_training_scaling",
                   "aiw_sweep_run_task", "aiw_sweep_store", "aiw_autoscale_replay",
                   "aiw_inference_capacity", "aiw_plan_stats", "aiw_plan_row"}

# C typedef names of the callback types above (the header test maps them).
CALLBACK_TYPES = {"aiw_event_fn": EVENT_FN, "aiw_progress_fn": PROGRESS_FN,
                  "aiw_sample_fn": SAMPLE_FN,
                  "aiw_sweep_fn": SWEEP_FN, "aiw_sweep_progress_fn": SWEEP_PROGRESS_FN,
                  "aiw_diversity_progress_fn": DIVERSITY_PROGRESS_FN,
                  "aiw_capacity_progress_fn": CAPACITY_PROGRESS_FN,
                  "aiw_plan_progress_fn": PLAN_PROGRESS_FN}


HANDLES = (SIM, SWEEP, PROFILE, PLAN)


def is_output(ctype):
    """True for an argument the C function writes (a pointer to a value)."""
    return isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer) and \
        ctype not in HANDLES


def takes_sim(cname):
    """True when the first argument is a handle (aiw_sim or aiw_sweep)."""
    args = SIGNATURES[cname][1]
    return bool(args) and args[0][1] in HANDLES


# --------------------------------------------------------------------------
# errcheck
# --------------------------------------------------------------------------
def _text(b):
    return b.decode("utf-8", "replace") if b else ""


def _describe_args(cname, args):
    out = []
    for (name, ctype), value in zip(SIGNATURES[cname][1], args):
        if is_output(ctype) or ctype is c_void_p or ctype in HANDLES:
            continue
        if isinstance(value, bytes):
            value = _text(value)
        out.append("%s=%r" % (name, value))
    return ", ".join(out)


def _errcheck(result, func, args):
    if result >= 0:
        return result
    cname = func.__name__
    msg = ""
    if takes_sim(cname) and args and args[0]:
        if SIGNATURES[cname][1][0][1] is SIM:
            msg = _text(lib.aiw_sim_errmsg(args[0]))
        elif SIGNATURES[cname][1][0][1] is PROFILE:
            msg = _text(lib.aiw_profile_errmsg(args[0]))
        elif SIGNATURES[cname][1][0][1] is PLAN:
            msg = _text(lib.aiw_plan_errmsg(args[0]))
        else:
            msg = _text(lib.aiw_sweep_errmsg(args[0]))
    if not msg:
        msg = "%s(%s): %s" % (cname, _describe_args(cname, args),
                              _text(lib.aiw_strerror(result)))
    raise make_error(result, msg, cname)


def make_error(status, message, function=None):
    name = _text(lib.aiw_status_name(status))
    return error_class(name)(status, name, message, function)


# --------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# bindings/python/aiworkload -> the repository root (a source tree)
_REPO = os.path.normpath(os.path.join(_PKG_DIR, "..", "..", ".."))
_LIBNAMES = ("libaiworkload.so.1", "libaiworkload.so")


def _candidates():
    """(how it was found, path or soname) in search order."""
    found = ctypes.util.find_library("aiworkload")
    if found:
        yield "ctypes.util.find_library('aiworkload')", found
    for name in _LIBNAMES:
        yield "the dynamic loader's search path", name
    for sub in ("build/.libs", ".libs"):
        path = os.path.join(_REPO, sub, "libaiworkload.so")
        yield "the build tree", path


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", c_char_p), ("dli_fbase", c_void_p), ("dli_sname", c_char_p),
                ("dli_saddr", c_void_p)]


def _file_of(func):
    """The file a loaded function comes from (dladdr), or None."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        try:
            dladdr = ctypes.CDLL(ctypes.util.find_library("dl")).dladdr
        except (OSError, AttributeError, TypeError):
            return None
    dladdr.argtypes = [c_void_p, POINTER(_DlInfo)]
    dladdr.restype = c_int
    info = _DlInfo()
    if not dladdr(ctypes.cast(func, c_void_p), ctypes.byref(info)) or not info.dli_fname:
        return None
    name = info.dli_fname.decode("utf-8", "replace")
    return os.path.realpath(name) if os.path.isabs(name) else name


def _open(how, path):
    """(CDLL, version number, message, file) or (None, None, message, path)."""
    if os.path.isabs(path) and not os.path.exists(path):
        return None, None, "%s (%s): no such file" % (path, how), path
    try:
        dll = ctypes.CDLL(path)
    except OSError as e:
        return None, None, "%s (%s): cannot load: %s" % (path, how, e), path
    try:
        f = dll.aiw_version
    except AttributeError:
        return None, None, "%s (%s): has no aiw_version(): not libaiworkload" % (path, how), path
    f.restype, f.argtypes = c_uint, []
    v = f()
    where = _file_of(f) or path
    return dll, v, "%s (%s): version %d.%d.%d" % (where, how, v >> 16, (v >> 8) & 255,
                                                  v & 255), where


def _compatible(v):
    return (v >> 16) == ABI_MAJOR and ((v >> 8) & 255) >= ABI_MINOR


def _want():
    return "%d.x with x >= %d" % (ABI_MAJOR, ABI_MINOR) if ABI_MAJOR == 0 else \
        "%d.x" % ABI_MAJOR


class _Lib(object):
    """The loaded library: one attribute per table entry, bound on first use.

    path: the file loaded; how: how it was found; version: aiw_version();
    missing: table functions the loaded library does not export (calling
    one raises NotSupported).
    """

    def __init__(self):
        self._dll = None

    def _load(self):
        if self._dll is not None:
            return
        tried = []
        env = os.environ.get("AIWORKLOAD_LIBRARY")
        if env:
            dll, v, msg, where = _open("AIWORKLOAD_LIBRARY", env)
            if dll is None or not _compatible(v):
                raise LibraryError(
                    "AIWORKLOAD_LIBRARY=%s: %s; this package (aiworkload for ABI %d.%d) "
                    "needs libaiworkload %s" % (env, msg, ABI_MAJOR, ABI_MINOR, _want()))
            self._bind(dll, where, "AIWORKLOAD_LIBRARY", v)
            return
        for how, path in _candidates():
            dll, v, msg, where = _open(how, path)
            tried.append(msg)
            if dll is not None and _compatible(v):
                self._bind(dll, where, how, v)
                return
        raise LibraryError(
            "no usable libaiworkload: this package needs version %s.  Tried:\n  %s\n"
            "Build the library (./quickstart run), install it, or point "
            "AIWORKLOAD_LIBRARY at libaiworkload.so" % (_want(), "\n  ".join(tried)))

    def _bind(self, dll, path, how, version):
        self.path, self.how, self.version = path, how, version
        self.missing = []
        for cname, (restype, args) in SIGNATURES.items():
            try:
                f = getattr(dll, cname)
            except AttributeError:
                self.missing.append(cname)
                setattr(self, cname, _missing(cname, path, version))
                continue
            f.argtypes = [t for _, t in args]
            if restype is STATUS:
                f.restype = c_int
                f.errcheck = _errcheck
            else:
                f.restype = restype
            text = [i for i, (_, t) in enumerate(args) if t is c_char_p]
            setattr(self, cname, _nul_guard(f, cname, text) if text else f)
        self._dll = dll

    def __getattr__(self, name):
        # only reached for attributes not bound yet
        if name.startswith("aiw_") or name in ("path", "how", "version", "missing"):
            self._load()
            return object.__getattribute__(self, name)
        raise AttributeError(name)


def _missing(cname, path, version):
    def call(*args):
        from .errors import NotSupported
        raise NotSupported(-12, "AIW_ENOTSUP",
                           "%s is not exported by %s (version %d.%d.%d): the library is older "
                           "than this package" % (cname, path, version >> 16,
                                                  (version >> 8) & 255, version & 255), cname)
    call.__name__ = cname
    return call


lib = _Lib()


def load():
    """Load the library now (it loads on first use otherwise); return it."""
    lib._load()
    return lib


__all__ = ["SIGNATURES", "lib", "load", "AiwError"]

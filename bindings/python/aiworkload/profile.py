"""Measured serving times and the fit of the serving iteration model
(aiw_profile_create(3))."""

from ctypes import byref, c_char_p, c_double, c_size_t

from . import _capi

NTERMS = 6


def _b(s):
    return s.encode("utf-8") if isinstance(s, str) else s


def _s(b):
    return b.decode("utf-8") if b else ""


def terms():
    """Names of the model's terms, in coefficient order."""
    out = []
    for i in range(NTERMS):
        p = c_char_p()
        _capi.lib.aiw_profile_term_name(i, byref(p))
        out.append(_s(p.value))
    return out


class Profile(object):
    """A measured table (Splitwise's perf_model.csv, or
    phase,gpu,tp,batch,prompt,context,time_s) and its fits."""

    def __init__(self, path=None, **settings):
        self._p = _capi.PROFILE()
        _capi.lib.aiw_profile_create(byref(self._p))
        for k, v in settings.items():
            self.set(k, v)
        if path is not None:
            _capi.lib.aiw_profile_read(self._p, _b(str(path)))

    def close(self):
        if self._p:
            _capi.lib.aiw_profile_free(self._p)
            self._p = _capi.PROFILE()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def errmsg(self):
        return _s(_capi.lib.aiw_profile_errmsg(self._p))

    def set(self, name, value):
        _capi.lib.aiw_profile_set(self._p, _b(name), float(value))

    def groups(self):
        """[(name in the table, catalog GPU)]"""
        n = c_size_t()
        _capi.lib.aiw_profile_group_count(self._p, byref(n))
        out = []
        for i in range(n.value):
            a, g = c_char_p(), c_char_p()
            _capi.lib.aiw_profile_group_name(self._p, i, byref(a), byref(g))
            out.append((_s(a.value), _s(g.value)))
        return out

    def datasheet(self, gpu, phase):
        c = (c_double * NTERMS)()
        _capi.lib.aiw_profile_datasheet(self._p, _b(gpu), _b(phase), c, NTERMS)
        return dict(zip(terms(), c))

    def fit(self, gpu, phase):
        """{term: (coefficient, standard error)}"""
        c, se = (c_double * NTERMS)(), (c_double * NTERMS)()
        _capi.lib.aiw_profile_fit(self._p, _b(gpu), _b(phase), c, se, NTERMS)
        return {t: (c[i], se[i]) for i, t in enumerate(terms())}

    def rows(self):
        """[(gpu, phase, tp, batch, prompt, context, measured_s)]"""
        n = c_size_t()
        _capi.lib.aiw_profile_row_count(self._p, byref(n))
        out = []
        for i in range(n.value):
            g, ph = c_char_p(), c_char_p()
            v = [c_double() for _ in range(5)]
            _capi.lib.aiw_profile_row(self._p, i, byref(g), byref(ph), *[byref(x) for x in v])
            out.append((_s(g.value), _s(ph.value)) + tuple(x.value for x in v))
        return out

    def predict(self, row, coef):
        """Predicted time (s) of row i with coefficients {term: value}."""
        c = (c_double * NTERMS)(*[coef[t][0] if isinstance(coef[t], tuple) else coef[t]
                                  for t in terms()])
        out = c_double()
        _capi.lib.aiw_profile_predict(self._p, row, c, NTERMS, byref(out))
        return out.value

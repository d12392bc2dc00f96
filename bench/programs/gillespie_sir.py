"""Stochastic SIR epidemic by Gillespie's direct method: exponential waiting time with the
total propensity, then infection or recovery chosen in proportion to its rate, one event
per Python loop iteration until tmax or extinction. The number of iterations is set by the
random process (about two events per person), not by a count: no LOOPS entry."""
import numpy as np

NAME = "gillespie_sir"
LOOPS = {}
N = {"small": 400, "medium": 6000}


def make_inputs(size, loop_scale=1):
    return N[size], 5, 0.3, 0.1, 60.0, 7


def run(S0, I0, beta, gamma, tmax, seed):
    rng = np.random.default_rng(seed)
    t, S, I, R = 0.0, S0, I0, 0
    N = S0 + I0
    ts, Is = [t], [I]
    while t < tmax and I > 0:
        a1 = beta * S * I / N
        a2 = gamma * I
        a0 = a1 + a2
        t += rng.exponential(1 / a0)
        if rng.random() * a0 < a1:
            S -= 1
            I += 1
        else:
            I -= 1
            R += 1
        ts.append(t)
        Is.append(I)
    return np.array(ts), np.array(Is)

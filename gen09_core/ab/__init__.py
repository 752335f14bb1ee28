"""The A/B harness of Spec 09 §7: arms on one task sample, metrics, decision, ablations, and the
format-robustness probe."""

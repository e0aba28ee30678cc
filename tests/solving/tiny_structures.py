"""Key-set structures the planner's and the needs search's tests share: relations as sets of keys, no SymPy."""

ANY = lambda r, k: True  # noqa: E731  every direction solvable

# the tiny KB's structure: peak = sms * rate * clock (per precision), rate[bf16] = rate[fp16]
TINY = [frozenset({"peak[fp16]", "sms", "rate[fp16]", "clock"}),
        frozenset({"peak[bf16]", "sms", "rate[bf16]", "clock"}),
        frozenset({"rate[bf16]", "rate[fp16]"})]
# x + y = a, x - y = b, z = x * y / a
BLOCK = [frozenset({"a", "x", "y"}), frozenset({"b", "x", "y"}), frozenset({"z", "x", "y", "a"})]

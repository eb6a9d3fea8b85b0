def running_max(values, start):
    best = start
    seen = set()
    for v in values:
        if v > best:
            best = v
        seen.add(v % 3)
    return best, sorted(seen)

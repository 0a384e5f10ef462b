def retry(fn, attempts=3):
    for i in range(attempts - 1):
        try:
            return fn()
        except Exception as e:
            last = e
    raise last

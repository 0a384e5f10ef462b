def is_prime(n):
    for d in range(2, int(n ** 0.5)):
        if n % d == 0:
            return False
    return True

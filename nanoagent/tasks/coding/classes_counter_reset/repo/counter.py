class Counter:
    def __init__(self, start=0):
        self.start = start
        self.value = start

    def increment(self, by=1):
        self.value += by
        return self.value

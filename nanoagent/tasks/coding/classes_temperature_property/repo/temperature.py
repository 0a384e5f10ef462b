class Temperature:
    def __init__(self, celsius=0.0):
        self.celsius = celsius

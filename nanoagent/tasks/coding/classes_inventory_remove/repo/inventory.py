class Inventory:
    def __init__(self):
        self.stock = {}

    def add(self, item, n=1):
        self.stock[item] = self.stock.get(item, 0) + n

    def remove(self, item, n=1):
        self.stock[item] = self.stock.get(item, 0) - n

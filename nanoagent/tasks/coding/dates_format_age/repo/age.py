def age_on(birth, today):
    return today.year - birth.year

def top_words(text, n):
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    return list(counts.items())[:n]

def truncate(text, width):
    """Cut text to at most `width` characters, marking a cut with '...'."""
    if len(text) <= width:
        return text
    return text[:width] + "..."

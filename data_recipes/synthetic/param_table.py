"""The table of parameters (name, type, description, sampler, phrases) behind data_recipes.synthetic.params.

One line per parameter; `define()` registers them all in `params.PARAMS`. Grouped by domain only for reading:
any tool may use any parameter by name.

Run: called once by data_recipes.synthetic.params on import.
Left out: parameters no tool uses (the catalogue tests check every name used here exists, not the reverse).
"""

from __future__ import annotations


def define() -> None:  # noqa: C901  (a table, not logic)
    from data_recipes.synthetic import values as V
    from data_recipes.synthetic.params import (
        ARTISTS, AUTHORS, BOOKS, BRANCHES, CODE3, FOLDERS, FOODS, INGREDIENTS, MESSAGES, MOVIES, PATHS, PHRASES,
        PLAYERS, QUERIES, REPOS, SHOWS, SONGS, SUBJECTS, TEAMS, TITLES, TOPICS, WORDS, A, B, E, I, N, O, S,
        _address, _date_range, _dimensions, _domain_name, _flight_number, _hashtag, _isbn, _location,
        _price_range, _quoted, _sql, _url, _username)

    # places, dates, codes
    S("city", "City name, e.g. 'Paris'", V.city, ["in {}", "for {}"])
    S("origin_city", "City the trip starts from", V.city, ["from {}", "leaving {}"])
    S("destination_city", "City the trip goes to", V.city, ["to {}", "going to {}"])
    S("origin", "Departure airport as a 3-letter IATA code", V.airport, ["from {}", "departing {}"],
      pattern="^[A-Z]{3}$")
    S("destination", "Arrival airport as a 3-letter IATA code", V.airport, ["to {}", "arriving at {}"],
      pattern="^[A-Z]{3}$")
    S("country_code", "ISO 3166-1 alpha-2 country code, e.g. 'DE'", V.country_code, ["in {}", "for {}"],
      pattern="^[A-Z]{2}$")
    S("date", "Date in YYYY-MM-DD format", V.date, ["on {}", "for {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("departure_date", "Departure date (YYYY-MM-DD)", V.date, ["on {}", "departing {}", "leaving on {}"],
      pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("return_date", "Return date (YYYY-MM-DD)", V.date, ["returning {}", "coming back on {}"],
      pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("check_in", "Check-in date (YYYY-MM-DD)", V.date, ["checking in {}", "from {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("check_out", "Check-out date (YYYY-MM-DD)", V.date, ["checking out {}", "until {}"],
      pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("start_date", "First day (YYYY-MM-DD)", V.date, ["starting {}", "from {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("end_date", "Last day (YYYY-MM-DD)", V.date, ["ending {}", "through {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("due_date", "Due date (YYYY-MM-DD)", V.date, ["due {}", "by {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("time", "Time of day, 24-hour HH:MM", V.clock, ["at {}"], pattern=r"^\d{2}:\d{2}$")
    S("start_time", "Start time, 24-hour HH:MM", V.clock, ["at {}", "starting at {}"], pattern=r"^\d{2}:\d{2}$")
    S("timezone", "IANA time zone name", V.text_from(["Europe/Paris", "America/New_York", "Asia/Tokyo",
                                                     "Europe/London", "Australia/Sydney", "America/Chicago"]),
      ["in the {} time zone", "({})"])
    O("date_range", "Inclusive date range", {"start": {"type": "string"}, "end": {"type": "string"}},
      ["start", "end"], _date_range, ["{}"])
    O("price_range", "Price range in US dollars", {"min": {"type": "number", "minimum": 0},
                                                   "max": {"type": "number", "minimum": 0}},
      ["min", "max"], _price_range, ["{}", "priced {}"])
    O("address", "Street address", {"street": {"type": "string"}, "city": {"type": "string"},
                                    "postal_code": {"type": "string"}}, ["street", "city"], _address,
      ["at {}", "to {}"])
    O("location", "Coordinates in decimal degrees", {"latitude": {"type": "number", "minimum": -90, "maximum": 90},
                                                     "longitude": {"type": "number", "minimum": -180,
                                                                   "maximum": 180}},
      ["latitude", "longitude"], _location, ["at {}", "around {}"])
    S("location_name", "Where it takes place", V.text_from(["Room 4B", "the main office", "Cafe Nero", "Zoom"]),
      ["in {}", "at {}"])
    S("coupon_code", "Coupon code", lambda r: V.Value(*(2 * [V.pick(r, ["SAVE10", "WELCOME15", "FREESHIP", "SPRING20"])])),
      ["{}", "code {}"])
    A("dishes", "Dishes to order", {"type": "string"}, V.text_from(["margherita pizza", "pad thai", "sushi platter",
                                                                     "burrito", "ramen", "caesar salad"]), ["with {}"])
    S("place", "Place name or address", lambda r: V.Value(*(2 * [V.pick(r, ["Eiffel Tower", "Central Park",
                                                                             "Shibuya Crossing", "Big Ben",
                                                                             "the Colosseum", "Sagrada Família",
                                                                             "Golden Gate Bridge"])])),
      ["for {}", "of {}"])
    S("origin_place", "Where the route starts", V.city, ["from {}"])
    S("destination_place", "Where the route ends", V.city, ["to {}"])

    # money and finance
    S("symbol", "Stock ticker symbol, e.g. 'AAPL'", V.ticker, ["for {}", "of {}"], pattern="^[A-Z]{1,5}$")
    A("symbols", "Stock ticker symbols", {"type": "string", "pattern": "^[A-Z]{1,5}$"}, V.ticker, ["for {}", "with {}"])
    S("coin", "Cryptocurrency symbol, e.g. 'BTC'", V.crypto, ["for {}", "of {}"], pattern="^[A-Z]{2,5}$")
    S("currency", "ISO 4217 currency code", V.currency, ["in {}"], **CODE3)
    S("base_currency", "ISO 4217 code of the currency to convert from", V.currency, ["from {}"], **CODE3)
    S("target_currency", "ISO 4217 code of the currency to convert to", V.currency, ["to {}", "into {}"], **CODE3)
    N("amount", "Amount of money", lambda r: V.money(r, 5, 2000), ["for {}", "of {}"], exclusiveMinimum=0)
    N("max_price", "Highest price to include", lambda r: V.money(r, 50, 600), ["under {}", "for at most {}"],
      exclusiveMinimum=0)
    N("min_amount", "Smallest amount to include", lambda r: V.money(r, 10, 500), ["over {}", "above {}"], minimum=0)
    N("principal", "Loan or investment principal", lambda r: V.money(r, 1000, 500000), ["of {}", "on {}"],
      exclusiveMinimum=0)
    N("annual_rate", "Annual interest rate in percent", lambda r: V.decimal(r, 1, 12, 1), ["at {}%", "at {} percent"],
      minimum=0, maximum=100)
    I("years", "Number of years", 1, 40, ["over {} years", "for {} years"])
    I("quantity", "Number of units", 1, 500, ["{} units of", "quantity {}"], words_max=100)
    E("side", "Buy or sell", ["buy", "sell"], ["to {}"])
    E("order_type", "Order type", ["market", "limit"], ["as a {} order"], default="market")
    N("limit_price", "Limit price per share", lambda r: V.money(r, 20, 900), ["with a limit of {}"],
      exclusiveMinimum=0)
    E("interval", "Bar interval", [("1d", "daily"), ("1wk", "weekly"), ("1mo", "monthly")], ["{}", "at {} interval"],
      default="1d")
    S("account_id", "Bank account identifier", V.code_id("ACC", 6), ["for account {}", "on {}"])
    E("category", "Spending category", ["groceries", "travel", "dining", "utilities", "entertainment", "health"],
      ["in {}", "for {}"])
    S("recipient_email", "Email address of the person receiving it", V.email, ["to {}"])
    S("customer_email", "Customer's email address", V.email, ["for {}", "to {}"])
    S("note", "Short note shown to the recipient", V.text_from(["rent", "dinner", "concert tickets", "gift",
                                                               "team lunch", "book club"]), ["for {}"])
    I("year", "Calendar year", 2015, 2026, ["in {}", "for {}"])
    I("month", "Month number (1-12)", 1, 12, ["for month {}"])
    S("invoice_id", "Invoice identifier", V.code_id("INV"), ["{}", "number {}"])
    S("order_id", "Order identifier", V.code_id("ORD"), ["{}", "number {}"])
    S("watchlist_name", "Name of the watchlist", V.text_from(["tech", "dividends", "long term", "energy"]),
      ['called "{}"', 'named "{}"'])
    S("card_last4", "Last four digits of the card", lambda r: V.Value(*(2 * [f"{r.randint(0, 9999):04d}"])),
      ["ending in {}"], pattern=r"^\d{4}$")
    # codes for bookings etc.
    for name, prefix, what in [("booking_id", "BK", "Booking"), ("reservation_id", "RSV", "Reservation"),
                               ("event_id", "EVT", "Event"), ("task_id", "TSK", "Task"), ("ticket_id", "TKT", "Ticket"),
                               ("hotel_id", "HTL", "Hotel"), ("product_id", "PRD", "Product"),
                               ("property_id", "PROP", "Property"), ("course_id", "CRS", "Course"),
                               ("job_id", "JOB", "Job posting"), ("post_id", "PST", "Post"),
                               ("device_id", "DEV", "Device"), ("playlist_id", "PL", "Playlist"),
                               ("recipe_id", "RCP", "Recipe"), ("doctor_id", "DOC", "Doctor"),
                               ("showtime_id", "SHW", "Showtime"), ("loan_id", "LN", "Library loan"),
                               ("member_id", "MEM", "Library member"), ("reminder_id", "REM", "Reminder"),
                               ("note_id", "NTE", "Note"), ("ride_id", "RIDE", "Ride"), ("shipment_id", "SHP", "Shipment"),
                               ("car_id", "CAR", "Rental car"), ("stop_id", "STOP", "Transit stop"),
                               ("restaurant_id", "RST", "Restaurant"), ("contact_id", "CON", "Contact"),
                               ("appointment_id", "APT", "Appointment")]:
        S(name, f"{what} identifier", V.code_id(prefix), ["{}", "with id {}"])
    S("tracking_number", "Carrier tracking number", lambda r: V.Value(*(2 * [f"1Z{r.randrange(10**9, 10**10)}"])),
      ["{}", "with tracking number {}"])
    S("flight_number", "Flight number, e.g. 'BA117'", _flight_number, ["{}", "flight {}"])
    S("isbn", "13-digit ISBN", _isbn, ["with ISBN {}", "{}"], pattern=r"^\d{13}$")

    # counts, sizes, measures
    I("days", "Number of days", 1, 14, ["for {} days", "for the next {} days"], words_max=14)
    I("limit", "Maximum number of results", 1, 50, ["(top {})", "limit {}", "just {} of them"], default=10,
      words_max=20)
    I("passengers", "Number of passengers", 1, 9, ["for {} passengers", "{} people"], default=1)
    I("guests", "Number of guests", 1, 8, ["for {} guests", "for {} people"], default=2)
    I("party_size", "Number of people", 1, 12, ["for {}", "for a party of {}"])
    I("seats", "Number of seats", 1, 10, ["{} seats", "for {} people"])
    I("duration_minutes", "Length in minutes", 15, 240, ["for {} minutes", "lasting {} minutes"], words_max=120)
    I("radius_km", "Search radius in kilometres", 1, 50, ["within {} km", "in a {} km radius"], default=5)
    I("min_bedrooms", "Minimum number of bedrooms", 1, 6, ["with at least {} bedrooms", "{}+ bedrooms"])
    I("season", "Season (starting year)", 2015, 2025, ["in the {} season", "for {}"])
    I("pr_number", "Pull request number", 1, 4000, ["#{}", "number {}"])
    I("brightness", "Brightness in percent", 0, 100, ["to {}%", "at {} percent"])
    N("temperature", "Target temperature", lambda r: V.decimal(r, 16, 26, 0), ["to {} degrees"])
    I("age", "Age in years", 16, 90, ["aged {}", "{} years old"])
    N("weight_kg", "Body weight in kilograms", lambda r: V.decimal(r, 45, 120, 1), ["weighing {} kg", "{} kilos"])
    N("height_cm", "Height in centimetres", lambda r: V.decimal(r, 150, 200, 0), ["{} cm tall", "height {} cm"])
    N("package_weight_kg", "Package weight in kilograms", lambda r: V.decimal(r, 0.5, 30, 1), ["weighing {} kg"])
    O("dimensions", "Package dimensions in centimetres",
      {k: {"type": "integer", "minimum": 1} for k in ("length_cm", "width_cm", "height_cm")},
      ["length_cm", "width_cm", "height_cm"], _dimensions, ["sized {}", "measuring {}"])
    I("calories", "Calories (kcal)", 50, 1500, ["{} calories", "about {} kcal"])
    I("grams", "Portion in grams", 10, 500, ["{} g of", "{} grams of"], default=100)
    N("dosage_mg", "Dose in milligrams", lambda r: V.decimal(r, 5, 1000, 0), ["{} mg"])
    I("max_prep_minutes", "Longest preparation time in minutes", 10, 90, ["under {} minutes", "in {} minutes or less"])
    N("min_rating", "Lowest average rating (1-5)", lambda r: V.decimal(r, 3, 4.8, 1), ["rated {} or higher"],
      minimum=1, maximum=5)
    I("min_salary", "Lowest yearly salary", 30000, 200000, ["paying at least {}"])

    # math and science inputs
    I("n", "A non-negative integer", 0, 20, ["of {}", "for {}"], words_max=20)
    I("a", "First integer", 2, 500, ["{}"])
    I("b", "Second integer", 2, 500, ["and {}"])
    I("number", "The integer to test", 2, 10000, ["{}"])
    N("coef_a", "Coefficient of x^2", lambda r: V.decimal(r, 1, 9, 0), ["a={}"])
    N("coef_b", "Coefficient of x", lambda r: V.decimal(r, -20, 20, 0), ["b={}"])
    N("coef_c", "Constant term", lambda r: V.decimal(r, -30, 30, 0), ["c={}"])
    N("part", "The part", lambda r: V.decimal(r, 1, 500, 0), ["{} out of"])
    N("whole", "The whole", lambda r: V.decimal(r, 501, 2000, 0), ["{}"])
    I("compounds_per_year", "Compounding periods per year", 1, 365, ["compounded {} times a year"], default=12)
    N("base", "Base length", lambda r: V.decimal(r, 1, 50, 1), ["with base {}"])
    N("height", "Height", lambda r: V.decimal(r, 1, 50, 1), ["and height {}"])
    N("radius", "Radius", lambda r: V.decimal(r, 0.5, 30, 1), ["with radius {}", "of radius {}"])
    N("side_a", "First leg", lambda r: V.decimal(r, 1, 40, 0), ["with legs {}"])
    N("side_b", "Second leg", lambda r: V.decimal(r, 1, 40, 0), ["and {}"])
    A("numbers", "List of numbers", {"type": "number"}, lambda r: V.integer(r, 1, 99), ["of {}", "for {}"], k=(3, 6))
    O("matrix_size", "Rows and columns", {"rows": {"type": "integer"}, "cols": {"type": "integer"}}, ["rows", "cols"],
      lambda r: (lambda x, y: V.Value({"rows": x, "cols": y}, f"{x}x{y}"))(r.randint(2, 6), r.randint(2, 6)), ["{}"])
    N("bill_amount", "Bill total", lambda r: V.money(r, 10, 400), ["on a {} bill", "for a bill of {}"],
      exclusiveMinimum=0)
    I("tip_percent", "Tip percentage", 5, 30, ["at {}%", "with a {} percent tip"], default=15)
    I("split", "Number of people splitting", 1, 12, ["split {} ways", "between {} people"], default=1)
    N("velocity", "Speed in m/s", lambda r: V.decimal(r, 1, 80, 1), ["at {} m/s"])
    N("angle_deg", "Launch angle in degrees", lambda r: V.decimal(r, 5, 85, 0), ["at {} degrees"])
    N("mass_kg", "Mass in kilograms", lambda r: V.decimal(r, 0.1, 500, 1), ["of mass {} kg", "weighing {} kg"])
    N("volume_m3", "Volume in cubic metres", lambda r: V.decimal(r, 0.1, 20, 2), ["with volume {} m3"])
    S("element", "Chemical element symbol, e.g. 'Fe'", V.choice_of([("Fe", "iron"), ("Au", "gold"), ("O", "oxygen"),
                                                                    ("Na", "sodium"), ("C", "carbon"), ("He", "helium"),
                                                                    ("Cu", "copper"), ("Ag", "silver")]),
      ["for {}", "about {}"], pattern="^[A-Z][a-z]?$")
    N("value", "The quantity to convert", lambda r: V.integer(r, 1, 500, 100), ["{}"])
    E("length_from", "Unit to convert from", [("m", "metres"), ("km", "kilometres"), ("mi", "miles"), ("ft", "feet"),
                                              ("in", "inches"), ("cm", "centimetres")], ["{}"])
    E("length_to", "Unit to convert to", [("m", "metres"), ("km", "kilometres"), ("mi", "miles"), ("ft", "feet"),
                                          ("in", "inches"), ("cm", "centimetres")], ["to {}", "in {}"])
    E("mass_from", "Unit to convert from", [("kg", "kilograms"), ("g", "grams"), ("lb", "pounds"), ("oz", "ounces")],
      ["{}"])
    E("mass_to", "Unit to convert to", [("kg", "kilograms"), ("g", "grams"), ("lb", "pounds"), ("oz", "ounces")],
      ["to {}", "in {}"])
    E("temp_from", "Scale to convert from", ["celsius", "fahrenheit", "kelvin"], ["degrees {}"])
    E("temp_to", "Scale to convert to", ["celsius", "fahrenheit", "kelvin"], ["to {}", "in {}"])
    E("volume_from", "Unit to convert from", [("l", "litres"), ("ml", "millilitres"), ("gal", "US gallons"),
                                              ("cup", "cups")], ["{}"])
    E("volume_to", "Unit to convert to", [("l", "litres"), ("ml", "millilitres"), ("gal", "US gallons"),
                                          ("cup", "cups")], ["to {}", "in {}"])
    E("speed_from", "Unit to convert from", [("kmh", "km/h"), ("mph", "miles per hour"), ("ms", "metres per second"),
                                             ("kn", "knots")], ["{}"])
    E("speed_to", "Unit to convert to", [("kmh", "km/h"), ("mph", "miles per hour"), ("ms", "metres per second"),
                                         ("kn", "knots")], ["to {}", "in {}"])
    E("data_from", "Unit to convert from", [("MB", "megabytes"), ("GB", "gigabytes"), ("TB", "terabytes"),
                                            ("KB", "kilobytes")], ["{}"])
    E("data_to", "Unit to convert to", [("MB", "megabytes"), ("GB", "gigabytes"), ("TB", "terabytes"),
                                        ("KB", "kilobytes")], ["to {}", "in {}"])

    # enums used across domains
    E("units", "Temperature units", ["celsius", "fahrenheit"], ["in {}"], default="celsius")
    E("distance_units", "Distance units", [("km", "kilometres"), ("mi", "miles")], ["in {}"], default="km")
    E("cabin_class", "Cabin class", ["economy", "premium_economy", "business", "first"], ["in {}", "{} class"],
      default="economy")
    E("car_type", "Car category", ["compact", "sedan", "suv", "van", "convertible"], ["a {}", "{} size"])
    E("sort_by", "Sort order of results", ["price", "rating", "distance", "popularity"], ["sorted by {}", "by {}"],
      default="popularity")
    E("priority", "Priority level", ["low", "medium", "high", "urgent"], ["with {} priority", "marked {}"],
      default="medium")
    E("status", "Status filter", ["open", "in_progress", "done"], ["that are {}", "with status {}"])
    E("pr_state", "Pull request state", ["open", "closed", "merged", "all"], ["that are {}", "({})"], default="open")
    E("merge_method", "How to merge", ["merge", "squash", "rebase"], ["using {}", "with a {}"], default="merge")
    E("mode", "Travel mode", ["driving", "walking", "transit", "cycling"], ["by {}", "{}"], default="driving")
    E("place_type", "Kind of place", ["restaurant", "cafe", "pharmacy", "gas_station", "atm", "museum", "park",
                                      "hospital"], ["{}s", "a {}"])
    E("league", "League", [("premier_league", "Premier League"), ("la_liga", "La Liga"), ("nba", "NBA"),
                           ("nfl", "NFL"), ("mlb", "MLB"), ("serie_a", "Serie A"), ("bundesliga", "Bundesliga")],
      ["in the {}", "for the {}"])
    E("activity", "Workout type", ["running", "cycling", "swimming", "yoga", "strength", "walking", "rowing"],
      ["{}", "a {} session"])
    E("meal_type", "Meal", ["breakfast", "lunch", "dinner", "snack"], ["for {}", "as {}"])
    E("sex", "Sex for the formula", ["female", "male"], ["{}"])
    E("activity_level", "Activity level", ["sedentary", "light", "moderate", "active", "very_active"],
      ["with a {} lifestyle", "{} activity"], default="moderate")
    E("specialty", "Medical specialty", ["dermatology", "cardiology", "pediatrics", "dentistry", "orthopedics",
                                         "general_practice"], ["for {}", "in {}"])
    E("cuisine", "Cuisine", ["italian", "japanese", "mexican", "indian", "thai", "french", "vegan", "korean"],
      ["{}", "serving {} food"])
    E("diet", "Dietary restriction", ["vegetarian", "vegan", "gluten_free", "keto", "dairy_free"], ["{}", "that are {}"])
    E("price_level", "Price level from 1 (cheap) to 4", [("1", "cheap"), ("2", "moderate"), ("3", "upscale"),
                                                          ("4", "very expensive")], ["{}", "in the {} range"])
    E("genre", "Genre", ["comedy", "drama", "action", "horror", "documentary", "animation", "sci_fi", "romance"],
      ["{}", "in the {} genre"])
    E("music_genre", "Music genre", ["jazz", "rock", "pop", "classical", "hip_hop", "electronic", "folk"], ["{}"])
    E("news_category", "News section", ["business", "technology", "sports", "science", "health", "world"],
      ["about {}", "in {}"], default="world")
    E("listing_type", "Rent or buy", [("rent", "for rent"), ("sale", "for sale")], ["{}"])
    E("level", "Course level", ["beginner", "intermediate", "advanced"], ["at {} level", "{}"])
    E("file_type", "File type", ["pdf", "image", "spreadsheet", "document", "video", "archive"], ["{} files", "of type {}"])
    E("permission", "Access level", [("view", "view-only"), ("comment", "comment"), ("edit", "edit")],
      ["with {} access", "as {}"], default="view")
    E("platform", "Social network", ["twitter", "instagram", "linkedin", "mastodon", "facebook"], ["on {}"])
    E("carrier", "Shipping carrier", [("ups", "UPS"), ("fedex", "FedEx"), ("dhl", "DHL"), ("usps", "USPS")], ["via {}"])
    E("severity", "Lowest severity to include", ["minor", "moderate", "severe", "extreme"], ["at least {}"])
    E("ride_type", "Ride category", ["standard", "xl", "comfort", "shared"], ["a {} ride"], default="standard")
    E("seat_section", "Seating section", ["floor", "lower", "upper", "balcony"], ["in the {} section"])
    E("event_category", "Event type", ["concerts", "sports", "theatre", "comedy", "festivals"], ["{}"])
    E("leave_type", "Kind of leave", ["vacation", "sick", "parental", "unpaid"], ["as {} leave", "{} leave"])
    E("record_type", "DNS record type", ["A", "AAAA", "MX", "TXT", "CNAME"], ["{} records", "the {} record"])
    E("registry", "Package registry", ["pypi", "npm", "crates", "maven"], ["on {}"])
    E("door", "Which door", ["front", "back", "garage", "side"], ["the {} door"])
    E("light_color", "Light colour", ["warm_white", "cool_white", "red", "blue", "green", "purple"], ["to {}"])
    E("vacuum_mode", "Cleaning mode", ["quiet", "standard", "turbo"], ["in {} mode"], default="standard")
    E("return_reason", "Why it is returned", ["damaged", "wrong_item", "too_small", "too_large", "not_needed"],
      ["because it is {}", "reason: {}"])
    E("chain", "Blockchain", ["bitcoin", "ethereum", "solana"], ["on {}"])
    E("prog_language", "Programming language", ["python", "javascript", "go", "rust", "java"], ["in {}"])

    # free text and names
    S("title", "Title", _quoted(TITLES), ["called {}", "titled {}", "named {}"])
    S("subject", "Email subject line", _quoted(SUBJECTS), ["with subject {}", "about {}"])
    S("body", "Message body", _quoted(MESSAGES), ["saying {}", "with the text {}"])
    S("message", "Message text", _quoted(MESSAGES), ["saying {}", "that says {}"])
    S("text", "Text", _quoted(PHRASES[:3] + MESSAGES + PHRASES), ["{}", "the text {}"])
    S("content", "Note content", _quoted(MESSAGES), ["with the content {}", "saying {}"])
    S("reason", "Reason given", _quoted(["change of plans", "found a better price", "double booked",
                                         "no longer needed", "illness"]), ["because of {}", "reason: {}"])
    S("query", "Free-text search query", lambda r: V.Value(*(2 * [V.pick(r, QUERIES)])), ["for {}", "matching {}"])
    S("topic", "Topic", lambda r: V.Value(*(2 * [V.pick(r, TOPICS)])), ["about {}", "on {}"])
    S("name", "Person's full name", V.person, ["for {}", "named {}"])
    S("email", "Email address", V.email, ["for {}", "with {}"])
    A("recipients", "Email addresses of the recipients", {"type": "string"}, V.email, ["to {}"], k=(1, 3))
    A("attendees", "Email addresses of the attendees", {"type": "string"}, V.email, ["with {}", "inviting {}"],
      k=(1, 3))
    A("members", "Email addresses of the members", {"type": "string"}, V.email, ["with {}"], k=(2, 3))
    S("phone_number", "Phone number in E.164 format", V.phone, ["to {}", "at {}"], pattern=r"^\+\d{8,15}$")
    S("channel", "Chat channel name", V.text_from(["#general", "#dev", "#random", "#support", "#design"]), ["in {}"])
    A("tags", "Labels to attach", {"type": "string"}, V.text_from(["work", "personal", "urgent", "ideas", "later"]),
      ["tagged {}", "with tags {}"], k=(1, 3))
    A("labels", "Issue labels", {"type": "string"}, V.text_from(["bug", "enhancement", "docs", "good first issue",
                                                                  "performance"]), ["labelled {}"], k=(1, 2))
    S("artist", "Artist name", lambda r: V.Value(*(2 * [V.pick(r, ARTISTS)])), ["by {}", "from {}"])
    S("song_title", "Song title", lambda r: V.Value(*(2 * [V.pick(r, SONGS)])), ['"{}"'])
    A("songs", "Song titles", {"type": "string"}, lambda r: V.Value(*(2 * [V.pick(r, SONGS)])), ["with {}"])
    S("team", "Team name", lambda r: V.Value(*(2 * [V.pick(r, TEAMS)])), ["for {}", "of {}"])
    S("player", "Player's full name", lambda r: V.Value(*(2 * [V.pick(r, PLAYERS)])), ["for {}", "of {}"])
    S("movie_title", "Movie title", lambda r: V.Value(*(2 * [V.pick(r, MOVIES)])), ["for {}", '"{}"'])
    S("show", "TV show title", lambda r: V.Value(*(2 * [V.pick(r, SHOWS)])), ["for {}", "of {}"])
    S("book_title", "Book title", lambda r: V.Value(*(2 * [V.pick(r, BOOKS)])), ['"{}"', "called {}"])
    S("author", "Author name", lambda r: V.Value(*(2 * [V.pick(r, AUTHORS)])), ["by {}"])
    S("repo", "Repository as owner/name", lambda r: V.Value(*(2 * [V.pick(r, REPOS)])), ["in {}", "on {}"],
      pattern="^[^/]+/[^/]+$")
    S("branch", "Git branch name", lambda r: V.Value(*(2 * [V.pick(r, BRANCHES)])), ["on {}", "for branch {}"])
    S("new_branch", "Name of the new branch", lambda r: V.Value(*(2 * [V.pick(r, ["feature/search", "fix/login-bug",
                                                                                   "chore/deps", "docs/readme"])])),
      ["called {}", "named {}"])
    S("code_query", "Text or symbol to search for", V.text_from(["parse_config", "TODO", "def main", "retry(",
                                                                  "import requests"]), ['for "{}"'])
    S("sql", "SQL query to run (read-only)", _sql, ["{}"])
    S("database", "Database name", V.text_from(["analytics", "shop", "crm", "warehouse"]), ["on the {} database",
                                                                                        "in {}"])
    S("table", "Table name", V.text_from(["orders", "users", "invoices", "events"]), ["of the {} table", "for {}"])
    S("url", "Full URL", _url, ["{}", "for {}"])
    S("domain", "Domain name", _domain_name, ["for {}", "of {}"])
    S("package_name", "Package name", V.text_from(["requests", "numpy", "react", "serde", "lodash", "pandas"]),
      ["{}", "for {}"])
    S("word", "Word", V.text_from(WORDS), ['"{}"', "the word {}"])
    S("target_language", "ISO 639-1 code of the language to translate into",
      lambda r: (lambda v: V.Value(v.value, v.text, v.alt))(V.language(r)) if r.random() < 0.2 else
      V.choice_of([("fr", "French"), ("es", "Spanish"), ("de", "German")])(r), ["into {}", "to {}"],
      pattern="^[a-z]{2}$")
    S("source_language", "ISO 639-1 code of the source language", V.language, ["from {}"], pattern="^[a-z]{2}$")
    S("language", "ISO 639-1 language code", V.language, ["in {}"], pattern="^[a-z]{2}$")
    S("food", "Food name", V.text_from(FOODS), ["{}", "for {}"])
    A("ingredients", "Ingredients to use", {"type": "string"}, V.text_from(INGREDIENTS), ["with {}", "using {}"])
    S("medication", "Medication name", V.text_from(["ibuprofen", "vitamin D", "amoxicillin", "metformin",
                                                    "loratadine"]), ["for {}", "to take {}"])
    A("times", "Times of day (HH:MM)", {"type": "string", "pattern": r"^\d{2}:\d{2}$"}, V.clock, ["at {}"], k=(1, 3))
    S("folder", "Folder path", V.text_from(FOLDERS), ["in {}", "under {}"])
    S("path", "File path", V.text_from(PATHS), ["{}", "at {}"])
    A("paths", "File paths", {"type": "string"}, V.text_from(PATHS), ["{}"])
    S("archive_name", "Name of the archive file", V.text_from(["backup.zip", "reports.zip", "photos.tar.gz"]),
      ["as {}", "into {}"])
    S("job_title", "Job title", V.text_from(["data analyst", "backend engineer", "nurse", "product designer",
                                             "accountant", "teacher"]), ["{}", "for {} roles"])
    S("team_name", "Team name", V.text_from(["platform", "design", "sales", "support", "research"]),
      ["on the {} team", "in {}"])
    S("username", "Account handle", _username, ["{}", "for {}"])
    S("hashtag", "Hashtag including '#'", _hashtag, ["{}", "with {}"], pattern="^#\\w+$")
    S("room", "Room name", V.text_from(["living room", "kitchen", "bedroom", "office", "hallway"]), ["in the {}"])
    A("rooms", "Rooms to clean", {"type": "string"}, V.text_from(["living room", "kitchen", "bedroom", "office",
                                                                   "hallway"]), ["in the {}"], k=(1, 3))
    S("label", "Label shown with the alarm", _quoted(["Gym", "Wake up", "Take pills", "Call mum", "Leave for work"]),
      ["labelled {}", "called {}"])
    S("station_from", "Departure station", V.city, ["from {}"])
    S("station_to", "Arrival station", V.city, ["to {}"])
    S("venue", "Venue name", V.text_from(["Madison Square Garden", "Royal Albert Hall", "Sydney Opera House",
                                          "Red Rocks", "the O2 Arena"]), ["for {}", "about {}"])
    S("wallet_address", "Wallet address", lambda r: V.Value(*(2 * ["0x" + "".join(r.choice("0123456789abcdef")
                                                                                 for _ in range(12))])), ["{}"])
    S("branch_library", "Library branch name", V.text_from(["Central", "Riverside", "Northgate", "Old Town"]),
      ["at the {} branch"])
    S("resume_url", "Link to the CV", _url, ["with my CV at {}"])
    B("open_now", "Only places open right now", ["that are open now", "open right now"], ["even if closed now"])
    B("remote", "Only remote positions", ["remote only", "that are remote"], ["on-site only"])
    B("free_only", "Only free courses", ["free ones only", "that are free"], ["including paid ones"])
    B("include_hourly", "Include an hourly breakdown", ["with hourly details", "hour by hour"],
      ["without the hourly breakdown"])
    B("avoid_tolls", "Avoid toll roads", ["avoiding tolls", "with no toll roads"], ["tolls are fine"])
    B("shuffle", "Shuffle playback", ["on shuffle", "shuffled"], ["in order, no shuffle"])
    B("public", "Make it public", ["public", "visible to everyone"], ["private", "not public"])
    B("notify", "Notify the other people involved", ["and let everyone know", "and notify them"],
      ["without notifying anyone"])
    B("express", "Use express delivery", ["with express delivery", "express"], ["standard shipping is fine"])
    B("repeat_weekdays", "Repeat on weekdays", ["every weekday", "on weekdays"], ["just once"])
    B("insurance", "Add insurance", ["with insurance"], ["without insurance"])

    # pets, cars, insurance, government, media, home, fitness, cloud, security
    S("pet_name", "Pet's name", V.text_from(["Luna", "Max", "Bella", "Milo", "Coco", "Rocky", "Nala"]), ["for {}", "named {}"])
    E("species", "Animal species", ["dog", "cat", "rabbit", "parrot", "hamster"], ["a {}", "for a {}"])
    E("fuel_type", "Fuel type", ["petrol", "diesel", "lpg"], ["for {}"], default="petrol")
    S("license_plate", "Vehicle registration plate",
      lambda r: (lambda s: V.Value(s, s, (s.lower(),)))(f"{r.choice('ABCDEFGHKLMN')}{r.choice('PRSTVWXY')}"
                                                       f"{r.randint(10, 99)} {r.choice('BCDFGHJK')}{r.choice('LMNPRST')}"
                                                       f"{r.choice('VWXYZ')}"), ["for {}", "plate {}"])
    E("service_type", "Kind of service", ["oil_change", "tyres", "inspection", "brakes"], ["for {}", "({})"],
      default="inspection")
    S("vin", "17-character vehicle identification number",
      lambda r: V.Value(*(2 * ["".join(r.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(17))])),
      ["{}", "with VIN {}"], pattern="^[A-HJ-NPR-Z0-9]{17}$")
    N("distance_km", "Distance in kilometres", lambda r: V.decimal(r, 1, 900, 1), ["for {} km", "over {} km"],
      exclusiveMinimum=0)
    N("fuel_efficiency", "Consumption in litres per 100 km", lambda r: V.decimal(r, 3, 15, 1),
      ["using {} l/100km", "at {} litres per 100 km"], exclusiveMinimum=0)
    N("fuel_price_per_litre", "Fuel price per litre", lambda r: V.money(r, 1, 2, ""), ["with fuel at {} a litre"],
      exclusiveMinimum=0)
    E("insurance_type", "Kind of insurance", ["car", "home", "travel", "health", "pet"], ["{} insurance", "for {} cover"])
    S("policy_number", "Insurance policy number", V.code_id("POL", 7), ["{}", "on policy {}"])
    S("claim_id", "Claim identifier", V.code_id("CLM"), ["{}", "claim {}"])
    S("class_id", "Class identifier", V.code_id("CLS"), ["{}", "class {}"])
    S("instance_id", "Virtual machine identifier", V.code_id("VM", 6), ["{}", "instance {}"])
    N("income", "Yearly taxable income", lambda r: V.money(r, 15000, 250000), ["on an income of {}", "earning {}"],
      exclusiveMinimum=0)
    S("citizenship", "ISO 3166-1 alpha-2 code of the traveller's citizenship", V.country_code,
      ["for a citizen of {}", "with a passport from {}"], pattern="^[A-Z]{2}$")
    S("destination_country", "ISO 3166-1 alpha-2 code of the destination", V.country_code, ["travelling to {}"],
      pattern="^[A-Z]{2}$")
    S("podcast_name", "Podcast title", V.text_from(["Hardcore History", "The Daily", "Radiolab", "Syntax",
                                                    "Planet Money", "Darknet Diaries"]), ["of {}", "for {}"])
    E("game_genre", "Game genre", ["rpg", "strategy", "puzzle", "shooter", "racing", "platformer"],
      ["in the {} genre", "{}"])
    E("console", "Gaming platform", ["pc", "playstation", "xbox", "switch"], ["on {}"])
    S("gamertag", "Player handle", V.text_from(["NightOwl42", "PixelQueen", "xXSniperXx", "CalmPanda"]), ["{}", "for {}"])
    S("game_title", "Game title", V.text_from(["Minecraft", "Elden Ring", "Stardew Valley", "Tetris", "Hades"]),
      ["{}", "for {}"])
    I("width_px", "Target width in pixels", 64, 4000, ["to {} wide"])
    I("height_px", "Target height in pixels", 64, 4000, ["and {} high", "by {} px"])
    S("plant", "Plant name", V.text_from(["monstera", "basil", "fiddle leaf fig", "snake plant", "orchid", "tomato"]),
      ["for a {}", "for my {}"])
    E("trade", "Kind of work", ["plumber", "electrician", "carpenter", "painter", "locksmith"], ["a {}", "{}s"])
    I("resting_heart_rate", "Resting heart rate in bpm", 40, 100, ["with a resting heart rate of {}"])
    E("race_distance", "Race distance", [("5k", "5K"), ("10k", "10K"), ("half_marathon", "half marathon"),
                                         ("marathon", "marathon")], ["for a {}", "{} race"])
    S("race_date", "Race day (YYYY-MM-DD)", V.date, ["on {}", "for race day {}"], pattern=r"^\d{4}-\d{2}-\d{2}$")
    S("instance_name", "Name for the machine", V.text_from(["web-1", "build-runner", "db-replica", "staging-api"]),
      ["called {}", "named {}"])
    E("machine_type", "Machine size", ["small", "medium", "large", "gpu"], ["{} size", "a {} machine"])
    E("region", "Cloud region", ["us-east-1", "eu-west-1", "ap-northeast-1", "eu-central-1"], ["in {}"])
    S("bucket_name", "Bucket name (lowercase)", V.text_from(["team-backups", "site-assets", "ml-datasets", "logs-2025"]),
      ["called {}", "named {}"], pattern="^[a-z0-9-]+$")
    S("password", "The password to check", _quoted(["hunter2", "Tr0ub4dor&3", "correct horse battery staple",
                                                     "P@ssw0rd!", "qwerty123"]), ["{}"])
    N("min_magnitude", "Smallest magnitude to include", lambda r: V.decimal(r, 2, 7, 1), ["of magnitude {} or more",
                                                                                      "above magnitude {}"],
      minimum=0, maximum=10)
    S("charity", "Charity name", V.text_from(["Red Cross", "Doctors Without Borders", "WWF", "UNICEF",
                                              "the local food bank"]), ["to {}"])
    E("environment", "Deployment environment", ["staging", "production"], ["to {}", "on {}"], default="staging")
    E("planet", "Planet", ["mercury", "venus", "earth", "mars", "jupiter", "saturn", "uranus", "neptune"],
      ["for {}", "about {}"])

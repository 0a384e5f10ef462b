"""The domain table: domains x entities x verbs, each verb with its parameter names (from param_table).

One `T(...)` row per entity: the domain, the entity's noun and plural, the fields its results carry, and the verbs
it supports with their parameters. `"?name"` marks an optional parameter. A verb may carry its own word
(`create=("book", ...)` -> `book_hotel`) and `do=[(tool_name, phrase, params)]` adds actions that are not one of
the generic verbs (`track_package`, `lock_door`). data_recipes.synthetic.catalogue turns the rows into tools.

Run: `python -c "from data_recipes.synthetic.domains import ROWS; print(len(ROWS))"`.
Left out: tools whose arguments a user can't state in one sentence (file uploads, binary payloads).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Row:
    domain: str
    noun: str
    plural: str
    res: str  # "field:kind ..." of a single result (or of each item in a search/list result)
    verbs: dict = field(default_factory=dict)  # verb -> (word, "params")
    do: tuple = ()  # ((tool_name, phrase, "params"), ...)


ROWS: list[Row] = []


def T(domain, noun, plural=None, res="status", do=(), **verbs):
    norm = {}
    for verb, spec in verbs.items():
        word, params = spec if isinstance(spec, tuple) else (None, spec)
        norm[verb] = (word, params)
    ROWS.append(Row(domain, noun, plural or _plural(noun), res, norm, tuple(do)))


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


# weather
T("weather", "current_weather", res="temperature_c:temp condition:condition humidity:percent wind_kmh:speed",
  get="city ?units")
T("weather", "weather_forecast", res="high_c:temp low_c:temp condition:condition rain_chance:percent",
  get="location ?days ?units ?include_hourly")
T("weather", "air_quality", res="aqi:aqi main_pollutant:pollutant level:aqi_level", get="location ?date")
T("weather", "uv_index", res="uv_index:uv risk:aqi_level", get="city ?date")
T("weather", "weather_alert", res="headline:alert severity:severity", list="city ?severity")
T("weather", "sunrise_sunset", res="sunrise:time sunset:time", get="city ?date")
T("weather", "historical_weather", res="high_c:temp low_c:temp condition:condition", get="location date ?units")
T("weather", "pollen_count", res="level:aqi_level main_allergen:pollen", get="city ?date")
# stocks and markets
T("finance", "stock_price", res="price:price change_percent:change currency:currency", get="symbol")
T("finance", "stock_history", res="open:price close:price high:price low:price", get="symbol date_range ?interval")
T("finance", "company_profile", res="name:company sector:sector employees:count", get="symbol")
T("finance", "market_news", "market_news", res="headline:headline source:source", search="topic ?symbol ?limit")
T("finance", "dividend", res="date:date amount:price", list="symbol ?year")
T("finance", "watchlist", res="watchlist_id:id", create="watchlist_name symbols", delete="watchlist_name")
T("finance", "stock_order", res="order_id:id status:order_status",
  create=("place", "symbol quantity side ?order_type ?limit_price"), delete=("cancel", "order_id"))
T("finance", "stock_quote_batch", res="price:price", get="symbols")
T("finance", "earnings_report", res="quarter:quarter eps:price revenue_billion:money", get="symbol ?year")
# banking and payments
T("banking", "account_balance", res="balance:price currency:currency", get="account_id")
T("banking", "transaction", res="description:merchant amount:price date:date",
  list="account_id ?date_range ?category ?limit", search="account_id min_amount ?category")
T("banking", "payment", res="payment_id:id status:pay_status", create=("send", "recipient_email amount currency ?note"))
T("banking", "invoice", res="invoice_id:id status:pay_status total:price",
  create="customer_email amount currency due_date", get="invoice_id", delete=("void", "invoice_id ?reason"))
T("banking", "card", res="status:card_status", do=(("freeze_card", "freeze my card", "card_last4"),
                                                   ("unfreeze_card", "unfreeze my card", "card_last4")))
T("banking", "spending_summary", res="total:price top_category:category", get="account_id month year")
T("banking", "budget", res="budget_id:id", create="category amount ?month", update="category amount")
# currency and crypto
T("currency", "exchange_rate", res="rate:rate date:date", get="base_currency target_currency ?date")
T("currency", "currency", res="converted_amount:price rate:rate",
  calc=("convert", "amount base_currency target_currency"))
T("currency", "crypto_price", res="price:price change_24h_percent:change", get="coin ?currency")
T("currency", "wallet_balance", res="balance:crypto_amount", get="wallet_address chain")
T("currency", "historical_rate", res="date:date rate:rate", list="base_currency target_currency date_range")
# flights and travel
T("flights", "flight", res="flight_number:flight airline:airline departs:time price:price",
  search="origin destination departure_date ?return_date ?passengers ?cabin_class ?max_price",
  create=("book", "flight_number departure_date passengers ?cabin_class"))
T("flights", "flight_booking", res="booking_id:id status:booking_status", delete=("cancel", "booking_id ?reason"),
  get="booking_id", update="booking_id ?departure_date ?cabin_class")
T("flights", "flight_status", res="status:flight_status gate:gate departs:time", get="flight_number ?date")
T("flights", "seat_map", res="available_seats:count", get="flight_number departure_date")
T("flights", "baggage_allowance", res="checked_bags:count cabin_kg:count", get="flight_number ?cabin_class")
T("hotels", "hotel", res="name:hotel price_per_night:price rating:rating",
  search="city check_in check_out ?guests ?max_price ?sort_by ?min_rating ?amenities",
  create=("book", "hotel_id check_in check_out ?guests"))
T("hotels", "hotel_reservation", res="reservation_id:id status:booking_status", get="reservation_id",
  delete=("cancel", "reservation_id ?reason"), update="reservation_id ?check_in ?check_out ?guests")
T("hotels", "hotel_review", res="author:person rating:rating summary:review", list="hotel_id ?limit")
T("hotels", "hotel_amenities", res="wifi:bool pool:bool parking:bool", get="hotel_id")
T("car_rental", "rental_car", res="name:car price_per_day:price seats:count",
  search="city start_date end_date ?car_type ?max_price ?car_features",
  create=("book", "car_id start_date end_date ?insurance"))
T("car_rental", "car_rental_booking", res="booking_id:id status:booking_status",
  delete=("cancel", "booking_id"), get="booking_id")
T("trains", "train_connection", res="train:train departs:time arrives:time price:price",
  search="station_from station_to date ?time ?passengers")
T("trains", "train_ticket", res="ticket_id:id seat:seat", create=("book", "station_from station_to date time ?passengers"),
  delete=("cancel", "ticket_id"))
T("trains", "bus_arrival", res="line:bus_line minutes:count", list="stop_id ?limit")
T("rides", "ride", res="ride_id:id driver:person eta_minutes:count price:price",
  create=("request", "address destination_city ?ride_type"), delete=("cancel", "ride_id"), get="ride_id")
T("rides", "ride_estimate", res="price:price eta_minutes:count", get="origin_city destination_city ?ride_type")
# calendar, reminders, tasks, notes
T("calendar", "event", res="event_id:id title:title date:date",
  create="title date start_time ?duration_minutes ?attendees ?location_name", list="date ?limit",
  update="event_id ?date ?start_time ?title ?notify", delete="event_id ?notify")
T("calendar", "free_slot", res="start:time end:time", search="date duration_minutes ?attendees")
T("calendar", "meeting_invite", res="status:rsvp", create=("send", "event_id attendees ?message"))
T("calendar", "reminder", res="reminder_id:id", create="text date time ?repeat_weekdays", list="?date",
  delete="reminder_id", update="reminder_id ?date ?time")
T("calendar", "alarm", res="alarm_id:id", create=("set", "time ?label ?repeat_weekdays"), delete="time")
T("tasks", "task", res="task_id:id title:title status:task_status",
  create="title ?due_date ?priority ?tags", update="task_id ?status ?priority ?due_date", list="?status ?priority ?limit",
  delete="task_id")
T("tasks", "note", res="note_id:id title:title", create="title content ?tags", search="query ?tags",
  delete="note_id", get="note_id", update="note_id ?content ?tags")
T("tasks", "shopping_list_item", res="items:count", create=("add", "food ?quantity"), list="?limit")
# math and science
T("math", "factorial", res="result:number", calc="n")
T("math", "gcd", res="result:number", calc="a b")
T("math", "lcm", res="result:number", calc="a b")
T("math", "prime_check", res="is_prime:bool", do=(("check_prime", "check if this number is prime:", "number"),))
T("math", "quadratic", res="roots:roots", calc=("solve", "coef_a coef_b coef_c"))
T("math", "percentage", res="result:number", calc="part whole")
T("math", "compound_interest", res="final_amount:price", calc="principal annual_rate years ?compounds_per_year")
T("math", "loan_payment", res="monthly_payment:price", calc="principal interest_rate years")
T("math", "triangle_area", res="area:number", calc="base height")
T("math", "circle_area", res="area:number", calc="radius")
T("math", "hypotenuse", res="length:number", calc="side_a side_b")
T("math", "mean", res="mean:number", calc="numbers")
T("math", "median", res="median:number", calc="numbers")
T("math", "standard_deviation", res="std_dev:number", calc="numbers")
T("math", "tip", res="tip:price per_person:price", calc="bill_amount ?tip_percent ?split")
T("math", "identity_matrix", res="matrix:matrix", calc=("build", "matrix_size"))
T("science", "projectile_range", res="range_m:number", calc="velocity angle_deg")
T("science", "kinetic_energy", res="energy_j:number", calc="mass_kg velocity")
T("science", "density", res="density:number", calc="mass_kg volume_m3")
T("science", "element_info", res="name:element atomic_number:count atomic_mass:number", get="element")
T("science", "sphere_volume", res="volume:number", calc="radius")
# unit conversion
for unit, params in [("length", "value length_from length_to"), ("weight", "value mass_from mass_to"),
                     ("temperature", "value temp_from temp_to"), ("volume", "value volume_from volume_to"),
                     ("speed", "value speed_from speed_to"), ("data_size", "value data_from data_to")]:
    T("units", unit, res="result:number", calc=("convert", params))
# shopping
T("shopping", "product", res="name:product price:price rating:rating",
  search="query ?price_range ?sort_by ?limit ?min_rating", get="product_id")
T("shopping", "cart_item", res="cart_total:price items:count", create=("add", "product_id ?quantity"),
  delete=("remove", "product_id"), list="?limit", update="product_id ?quantity")
T("shopping", "order", res="order_id:id status:order_status total:price", get="order_id",
  delete=("cancel", "order_id ?reason"), list="?status ?limit")
T("shopping", "return_request", res="return_id:id label_url:url", create="order_id return_reason")
T("shopping", "price_alert", res="alert_id:id", create="product_id max_price")
T("shopping", "coupon", res="valid:bool discount_percent:percent", do=(("apply_coupon", "apply the coupon",
                                                                       "coupon_code order_id"),))
T("shopping", "store", res="name:store distance_km:distance", search="city ?open_now ?radius_km")
# messaging
T("messaging", "email", res="message_id:id", create=("send", "recipients subject body ?attendees"),
  search="query ?date_range ?limit", delete="subject")
T("messaging", "sms", res="message_id:id status:sent_status", create=("send", "phone_number message"))
T("messaging", "chat_message", res="message_id:id", create=("post", "channel message"), list="channel ?limit")
T("messaging", "group_chat", res="chat_id:id", create="title members")
T("messaging", "contact", res="name:person email:email phone:phone", search="name", create="name email ?phone_number",
  delete="contact_id", update="contact_id ?email ?phone_number")
T("messaging", "voicemail", res="from:person duration_s:count", list="?limit")
T("messaging", "email_draft", res="draft_id:id", create="recipients subject body")
# files and storage
T("files", "file", res="name:filename size_kb:count modified:date", list="folder ?file_type ?limit",
  search="query ?file_type", delete="path")
T("files", "file_metadata", res="size_kb:count modified:date owner:person", get="path")
T("files", "folder", res="path:folder", create="folder")
T("files", "file_share", res="share_url:url", do=(("share_file", "share", "path email ?permission"),))
T("files", "archive", res="archive:filename size_kb:count", create="paths archive_name")
T("files", "storage_usage", res="used_gb:number free_gb:number", get="?folder")
T("files", "file_version", res="version:count modified:date", list="path ?limit", do=(("restore_file_version",
                                                                                      "restore the old version of",
                                                                                      "path"),))
# maps and places
T("maps", "directions", res="distance_km:distance duration_min:count summary:route",
  get="origin_place destination_place ?mode ?avoid_tolls")
T("maps", "coordinates", res="latitude:lat longitude:lon", get="address")
T("maps", "address_lookup", res="address:street", get="coordinates")
T("maps", "nearby_place", res="name:place_name distance_km:distance rating:rating",
  search="coordinates place_type ?radius_km ?open_now ?limit")
T("maps", "distance", res="distance:distance", get="origin_place destination_place ?distance_units")
T("maps", "timezone", res="timezone:tz utc_offset:offset", get="city")
T("maps", "travel_time", res="minutes:count", get="origin_place destination_place mode")
T("maps", "place_details", res="opening_hours:hours rating:rating", get="place")
# sports
T("sports", "match_score", res="home:team away:team score:score", list="league date")
T("sports", "team_standing", res="team:team points:count position:count", list="league ?season")
T("sports", "player_stats", res="games:count points_per_game:number", get="player ?season")
T("sports", "fixture", res="opponent:team date:date", list="team ?limit")
T("sports", "team_roster", res="player:person position:position", get="team ?season")
T("sports", "game_ticket", res="ticket_id:id price:price", search="team ?date_range ?max_price")
# health and fitness
T("health", "workout", res="workout_id:id calories:count", create=("log", "activity duration_minutes ?calories ?date"),
  list="?date_range ?activity")
T("health", "step_count", res="steps:count goal_percent:percent", get="date")
T("health", "meal", res="entry_id:id", create=("log", "food calories meal_type ?date"))
T("health", "sleep_summary", res="hours:number quality:quality", get="date")
T("health", "medication_reminder", res="reminder_id:id", create="medication dosage_mg times")
T("health", "calorie_needs", res="calories_per_day:count", calc="age weight_kg height_cm sex ?activity_level")
T("health", "bmi", res="bmi:number", calc="weight_kg height_cm")
T("health", "doctor", res="name:person specialty:specialty next_free:date",
  search="specialty city ?date ?languages_spoken")
T("health", "doctor_appointment", res="appointment_id:id", create=("book", "doctor_id date time"),
  delete=("cancel", "appointment_id"), update="appointment_id ?date ?time")
T("health", "nutrition_facts", res="calories:count protein_g:number", get="food ?grams")
# music and media
T("music", "song", res="title:song artist:artist duration:duration", search="query ?artist ?limit",
  do=(("play_song", "play", "song_title ?artist ?shuffle"),))
T("music", "playlist", res="playlist_id:id", create="title songs ?public", delete="playlist_id", list="?limit",
  update="playlist_id ?title ?public")
T("music", "playlist_track", res="tracks:count", create=("add", "playlist_id song_title"))
T("music", "artist_info", res="genre:music_genre top_song:song", get="artist")
T("music", "song_info", res="album:album year:year", get="song_title artist")
T("music", "radio_station", res="name:station", search="music_genre ?limit")
T("music", "concert", res="venue:venue date:date", list="artist ?city")
T("movies", "movie", res="title:movie year:year rating:rating", search="genre ?year ?limit")
T("movies", "movie_details", res="director:person runtime_min:count rating:rating", get="movie_title ?year")
T("movies", "showtime", res="cinema:cinema time:time", list="movie_title city date")
T("movies", "movie_ticket", res="ticket_id:id total:price", create=("book", "showtime_id seats"))
T("movies", "episode_guide", res="episodes:count first_aired:date", get="show season")
T("movies", "streaming_availability", res="services:services", get="movie_title country_code")
# news
T("news", "top_headline", res="headline:headline source:source", list="country_code ?news_category ?limit")
T("news", "news_article", res="headline:headline source:source", search="topic ?language ?date_range ?limit")
T("news", "news_digest", res="digest_id:id", create=("subscribe_to", "topic email ?language"))
# food and restaurants
T("food", "recipe", res="name:dish minutes:count",
  search="ingredients ?cuisine ?diet ?max_prep_minutes", get="recipe_id")
T("food", "meal_plan", res="plan_id:id", create="diet days ?calories")
T("food", "wine_pairing", res="wine:wine", get="food")
T("restaurants", "restaurant", res="name:restaurant rating:rating price_level:price_level",
  search="city ?cuisine ?price_level ?open_now ?min_rating ?dietary_options ?restaurant_features")
T("restaurants", "table_reservation", res="reservation_id:id status:booking_status",
  create=("book", "restaurant_id date time party_size"), delete=("cancel", "reservation_id"),
  update="reservation_id ?date ?time ?party_size")
T("restaurants", "restaurant_review", res="author:person rating:rating summary:review", list="restaurant_id ?limit")
T("restaurants", "food_delivery", res="order_id:id eta_minutes:count", create=("order", "restaurant_id dishes address"))
# real estate
T("real_estate", "property", "properties", res="address:street price:price bedrooms:count",
  search="city listing_type ?min_bedrooms ?max_price ?property_features", get="property_id")
T("real_estate", "mortgage", res="monthly_payment:price", calc=("estimate", "principal annual_rate years"))
T("real_estate", "property_viewing", res="viewing_id:id", create=("schedule", "property_id date time"))
T("real_estate", "rent_estimate", res="monthly_rent:price", get="city min_bedrooms")
# education and language
T("education", "course", res="title:course provider:provider level:level", search="topic ?level ?free_only ?language")
T("education", "course_enrollment", res="enrollment_id:id", create="course_id email")
T("education", "exam_result", res="score:percent grade:grade", get="course_id email")
T("language", "translation", res="translated_text:translation", do=(("translate_text", "translate",
                                                                      "text target_language ?source_language"),))
T("language", "detected_language", res="language:lang_code confidence:percent", get="text")
T("language", "word_definition", res="definition:definition", get="word ?language")
T("language", "synonym", res="synonym:synonym", list="word ?limit")
T("language", "spelling_check", res="corrections:count", do=(("check_spelling", "check the spelling of",
                                                              "text ?language"),))
# smart home
T("smart_home", "thermostat", res="target:temp mode:hvac", do=(("set_thermostat", "set the thermostat",
                                                              "temperature ?units ?room"),), get="?room")
T("smart_home", "light", res="state:onoff brightness:percent", do=(("set_light", "set the lights",
                                                                   "room brightness ?light_color"),
                                                                  ("turn_off_lights", "turn off the lights", "room")))
T("smart_home", "door_lock", res="locked:bool", do=(("lock_door", "lock", "door"), ("unlock_door", "unlock", "door")))
T("smart_home", "device_status", res="online:bool battery:percent", get="device_id")
T("smart_home", "vacuum", res="job_id:id", do=(("start_vacuum", "vacuum", "rooms ?vacuum_mode"),))
T("smart_home", "air_conditioner", res="mode:hvac target:temp", do=(("set_air_conditioner", "set the air conditioner",
                                                                     "ac_settings ?room"),))
T("smart_home", "energy_usage", res="kwh:number cost:price", get="date_range")
# jobs and HR
T("jobs", "job", res="title:job_title company:company salary:salary", search="job_title city ?remote ?min_salary")
T("jobs", "job_application", res="application_id:id", create=("submit", "job_id email ?resume_url"))
T("jobs", "time_off", res="request_id:id status:approval", do=(("request_time_off", "request time off",
                                                              "start_date end_date leave_type"),))
T("jobs", "payslip", res="net_pay:price", get="month year")
T("jobs", "team_member", res="name:person role:job_title", list="team_name")
# social
T("social", "social_post", res="post_id:id", create="platform text ?public", delete="post_id", update="post_id ?text ?public")
T("social", "follower_count", res="followers:count", get="platform username")
T("social", "post", res="author:person likes:count", search="hashtag ?platform ?limit")
T("social", "trending_topic", res="topic:headline", list="platform ?country_code ?limit")
# shipping
T("shipping", "package", res="status:ship_status location:city eta:date", do=(("track_package", "track the package",
                                                                              "tracking_number ?carrier"),))
T("shipping", "shipping_quote", res="price:price days:count",
  get="country_code package_weight_kg dimensions ?express")
T("shipping", "shipment", res="shipment_id:id label_url:url", create="address package_weight_kg ?carrier ?express",
  delete=("cancel", "shipment_id"), update="shipment_id ?address ?express")
T("shipping", "pickup", res="pickup_id:id", create=("schedule", "address date"))
# events and books
T("events", "event_listing", "events", res="name:event_name date:date venue:venue", search="city event_category ?date_range")
T("events", "event_ticket", res="order_id:id total:price", create=("buy", "event_id seats ?seat_section"))
T("events", "venue_info", res="capacity:count address:street", get="venue")
T("books", "book", res="title:book author:author year:year", search="query ?author ?language ?limit",
  get=("get", "isbn"))
T("books", "library_hold", res="hold_id:id position:count", create=("place", "isbn branch_library"))
T("books", "library_loan", res="due_date:date", do=(("renew_library_loan", "renew the library loan", "loan_id"),),
  list="member_id")
T("books", "book_recommendation", res="title:book author:author", list="author ?limit")
# developer tools
T("devtools", "github_issue", res="issue_number:count url:url", create="repo title body ?labels",
  list="repo ?status ?labels ?limit")
T("devtools", "pull_request", res="number:count title:title state:pr_state", list="repo ?pr_state ?limit",
  do=(("merge_pull_request", "merge pull request", "pr_number repo ?merge_method"),))
T("devtools", "ci_build_status", res="state:ci_state duration_s:count", get="repo branch")
T("devtools", "code_match", res="file:source_file line:count", search="repo code_query ?prog_language")
T("devtools", "commit", res="sha:sha message:commit_msg author:person", list="repo branch ?limit")
T("devtools", "git_branch", res="branch:branch", create="repo new_branch ?branch", delete="repo new_branch")
T("devtools", "sql_query", res="rows:count", do=(("run_sql_query", "run", "sql database"),))
T("devtools", "table_schema", res="columns:count", get="database table")
T("devtools", "table_row", res="rows:count", search="database table filters ?limit")
T("devtools", "http_response", res="status_code:count", do=(("send_get_request", "send a GET request to",
                                                          "url query_params"),))
T("accounts", "user_profile", res="user_id:id", update="user_id profile_data")
T("devtools", "website_status", res="up:bool latency_ms:count", get="url")
T("devtools", "dns_record", res="value:ip ttl:count", get="domain record_type")
T("devtools", "package_info", res="latest_version:version license:license", get="package_name registry")
T("devtools", "ssl_certificate", res="expires:date issuer:company", get="domain")
# pets
T("pets", "pet_profile", res="name:pet_name species:species age:count", create="pet_name species ?age", get="pet_name",
  update="pet_name ?age ?species")
T("pets", "vet_appointment", res="appointment_id:id", create=("book", "pet_name date time"),
  delete=("cancel", "appointment_id"))
T("pets", "pet_food_portion", res="grams_per_day:count", calc="species weight_kg")
T("pets", "dog_walker", res="name:person price:price rating:rating", search="city date ?max_price")
# cars
T("automotive", "fuel_price", res="price_per_litre:price station:store", list="city ?fuel_type ?limit")
T("automotive", "ev_charger", res="name:store distance_km:distance power_kw:count",
  search="coordinates ?radius_km ?open_now")
T("automotive", "car_service", res="booking_id:id", create=("book", "license_plate date ?service_type"))
T("automotive", "vehicle_info", res="make:car year:year", get="vin")
T("automotive", "fuel_cost", res="cost:price", calc="distance_km fuel_efficiency fuel_price_per_litre")
T("automotive", "parking_spot", res="name:place_name price_per_hour:price", search="city start_time ?duration_minutes")
# insurance and government
T("insurance", "insurance_quote", res="premium:price coverage:price", get="insurance_type age ?country_code")
T("insurance", "insurance_claim", res="claim_id:id status:approval", create=("file", "policy_number amount reason"),
  get="claim_id")
T("insurance", "policy", res="coverage:price renewal:date", get="policy_number")
T("government", "income_tax", res="tax:price effective_rate:percent", calc="income country_code ?year")
T("government", "passport_appointment", res="appointment_id:id", create=("book", "city date"))
T("government", "public_holiday", res="name:holiday date:date", list="country_code year")
T("government", "visa_requirement", res="visa_required:bool max_days:count", get="citizenship destination_country")
T("government", "sales_tax", res="tax:price total:price", calc="amount country_code")
# podcasts, games, photos
T("podcasts", "podcast", res="title:podcast host:person episodes:count", search="topic ?language ?limit")
T("podcasts", "podcast_episode", res="title:title duration:duration", list="podcast_name ?limit",
  do=(("play_podcast_episode", "play the latest episode", "podcast_name"),))
T("podcasts", "podcast_subscription", res="subscription_id:id", create=("subscribe_to", "podcast_name"),
  delete=("unsubscribe_from", "podcast_name"))
T("gaming", "game", res="title:game platform:console rating:rating", search="game_genre ?console ?limit")
T("gaming", "player_profile", res="level:count wins:count", get="gamertag console")
T("gaming", "game_price", res="price:price discount_percent:percent", get="game_title console")
T("gaming", "leaderboard", res="player:person score:count", list="game_title ?limit")
T("photos", "photo", res="filename:filename date:date", search="query ?date_range ?limit", delete="path")
T("photos", "photo_album", res="album_id:id", create="title ?public", list="?limit")
T("photos", "image", res="path:filename", do=(("resize_image", "resize the image", "path width_px height_px"),))
# home services
T("home", "plant_care", res="water_every_days:count sunlight:sunlight", get="plant")
T("home", "cleaning_service", res="booking_id:id price:price", create=("book", "address date duration_minutes"))
T("home", "handyman", "handymen", res="name:person rating:rating price_per_hour:price", search="city trade ?date")
T("home", "grocery_delivery", res="order_id:id eta:time", create=("schedule", "address date time"))
# fitness
T("fitness", "fitness_class", res="name:class_name time:time spots:count", search="city activity date")
T("fitness", "class_booking", res="booking_id:id", create=("book", "class_id"), delete=("cancel", "booking_id"))
T("fitness", "running_pace", res="pace_min_per_km:number", calc="distance_km duration_minutes")
T("fitness", "heart_rate_zone", res="zone_low:count zone_high:count", calc="age ?resting_heart_rate")
T("fitness", "training_plan", res="plan_id:id weeks:count", create="race_distance race_date ?level")
# cloud and security
T("cloud", "vm_instance", res="instance_id:id state:vm_state", create="instance_name machine_type region",
  list="?region ?limit", delete=("terminate", "instance_id"), get="instance_id")
T("cloud", "storage_bucket", res="bucket:bucket", create="bucket_name region ?public", list="?region")
T("cloud", "cloud_cost", res="cost:price top_service:service", get="month year ?region")
T("security", "password_strength", res="score:count verdict:verdict",
  do=(("check_password_strength", "check how strong this password is:", "password"),))
T("security", "breach_check", res="breaches:count",
  do=(("check_email_breaches", "check for data breaches", "email"),))
T("security", "two_factor", res="enabled:bool",
  do=(("enable_two_factor", "turn on two-factor authentication", "email"),))
# more weather, finance, travel, food, education, charity, utilities, devtools, science, gaming
T("weather", "marine_forecast", res="wave_height_m:number wind_kmh:speed", get="city ?days")
T("weather", "earthquake", res="magnitude:number place:city date:date", list="country_code ?min_magnitude ?limit")
T("finance", "portfolio", res="value:price day_change_percent:change", get="account_id")
T("finance", "market_status", res="open:bool closes_at:time", get="country_code")
T("banking", "loan_application", res="application_id:id status:approval", create=("submit", "amount years email"))
T("travel", "travel_advisory", res="level:aqi_level summary:headline", get="country_code")
T("travel", "tourist_attraction", res="name:place_name rating:rating", search="city ?sort_by ?limit")
T("travel", "park", res="name:park_name rating:rating", search="city facilities ?open_now")
T("travel", "itinerary", res="itinerary_id:id days:count", create="city start_date end_date ?tags")
T("food", "grocery_price", res="price:price store:store", get="food city")
T("restaurants", "restaurant_menu", res="dish:dish price:price", get="restaurant_id")
T("education", "quiz", res="quiz_id:id questions:count", create="topic ?level ?limit")
T("education", "flashcard_deck", res="deck_id:id", create="title ?tags")
T("charity", "donation", res="receipt_id:id", create=("make", "charity amount currency"))
T("charity", "charity", "charities", res="name:company rating:rating", search="topic ?country_code")
T("utilities", "power_outage", res="area:street restored_by:time", list="city")
T("utilities", "utility_bill", res="amount:price due:date", get="account_id month year")
T("utilities", "meter_reading", res="reading_id:id", create=("submit", "account_id value date"))
T("devtools", "deployment", res="deployment_id:id state:ci_state", create=("trigger", "repo branch ?environment"),
  get="repo environment")
T("devtools", "log_entry", res="time:time message:commit_msg", search="query ?date_range ?limit")
T("science", "planet_info", res="moons:count gravity_ms2:number", get="planet")
T("gaming", "game_server_status", res="online:bool players:count", get="game_title")

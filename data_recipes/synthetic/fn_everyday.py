"""Function table, everyday and trade: sports, school, work, building, kitchen, hobbies, transport, media, civic.

One `F(domain, name, ask, doc, params, compute)` row per base function (see library.py for the parameter spec).
These domains sit beside the everyday-API catalogue (domains.py) and hold calculators and lookups of their trade.

Run: `python -c "from data_recipes.synthetic.fn_everyday import FUNCTIONS; print(len(FUNCTIONS))"`.
Left out: advice a formula can't give (legal or medical decisions); the lookups here return facts, not verdicts.
"""

from __future__ import annotations

import math

from data_recipes.synthetic.library import F

FUNCTIONS = (
    # sports statistics
    F("sports_stats", "calculate_batting_average", "calculate a batting average", "Hits divided by at-bats.",
      "hits:i:0:200@with {} hits; at_bats:i:201:600@in {} at-bats", lambda a: a["hits"] / a["at_bats"]),
    F("sports_stats", "calculate_era", "compute a pitcher's ERA", "Earned runs per nine innings.",
      "earned_runs:i:0:100@with {} earned runs; innings_pitched:n:10:250:1@over {} innings",
      lambda a: 9 * a["earned_runs"] / a["innings_pitched"]),
    F("sports_stats", "calculate_win_percentage", "work out the win percentage", "Wins over games played, in %.",
      "wins:i:0:80@with {} wins; losses:i:0:80@and {} losses", lambda a: 100 * a["wins"] / max(1, a["wins"] + a["losses"])),
    F("sports_stats", "get_team_standings", "get the league standings for a team", "Standing of a team in its league.",
      "team:s:team@for the {}; ?season:i:2015:2026@in the {} season; "
      "?stats:le:wins|losses|draws|points|goal_difference@with the {}; ?include_player_stats:b=false@including player stats"),
    F("sports_stats", "calculate_elo_update", "update an Elo rating after a game", "New Elo rating after a result.",
      "rating:i:800:2800@for a player rated {}; opponent_rating:i:800:2800@against {}; "
      "result:e:win|draw|loss@after a {}; ?k_factor:i:10:40=20@with K = {}"),
    # education
    F("education", "calculate_gpa", "calculate a GPA", "Grade point average from letter grades and credits.",
      "grades:ls:grade@for grades {}; credits:li:1:5@with credits {}"),
    F("education", "calculate_final_grade_needed", "work out the grade needed on the final exam",
      "Final exam score needed for a target grade.", "current_grade:n:40:100:1@with a current grade of {}; "
      "target_grade:n:50:100:0@to reach {}; final_weight_percent:n:10:50:0@when the final counts {} %",
      lambda a: (a["target_grade"] - a["current_grade"] * (1 - a["final_weight_percent"] / 100)) /
      (a["final_weight_percent"] / 100)),
    F("education", "convert_percentage_to_letter_grade", "convert a score to a letter grade", "Letter grade of a score.",
      "score:n:0:100:0@for {}; ?scale:e:us|uk=us@on the {} scale"),
    F("education", "generate_quiz", "generate a quiz", "Quiz questions on a topic.",
      "topic:e:fractions|photosynthesis|world_war_ii|the_solar_system|verbs@on {}; questions:i:3:20@with {} questions; "
      "?difficulty:e:easy|medium|hard=medium@at {} level"),
    F("education", "calculate_average_score", "work out the average score", "Mean of the scores, by subject.",
      "scores:scores@for {}", lambda a: sum(a["scores"].values()) / len(a["scores"])),
    F("education", "find_top_subject", "find the subject with the highest score", "Subject with the highest score.",
      "scores:scores@from {}", lambda a: max(a["scores"], key=a["scores"].get), result="subject"),
    F("education", "calculate_score_spread", "find the spread between the best and worst score",
      "Highest minus lowest score.", "scores:scores@given {}",
      lambda a: max(a["scores"].values()) - min(a["scores"].values())),
    # elections (votes by candidate)
    F("elections", "find_election_winner", "find who won the vote", "Candidate with the most votes.",
      "votes:votes@with {}", lambda a: max(a["votes"], key=a["votes"].get), result="winner"),
    F("elections", "count_total_votes", "count the votes cast", "Total votes over all candidates.",
      "votes:votes@with {}", lambda a: sum(a["votes"].values()), result="total"),
    F("elections", "calculate_winning_margin", "work out the winning margin", "Votes between first and second place.",
      "votes:votes@with {}", lambda a: (lambda v: v[0] - v[1])(sorted(a["votes"].values(), reverse=True)),
      result="margin"),
    # shopping cart (quantity by item)
    F("shopping", "count_cart_items", "count the items in a shopping cart", "Total quantity of the items in a cart.",
      "cart:cart@with {}", lambda a: sum(a["cart"].values()), result="count"),
    # surveys
    F("surveys", "calculate_sample_size", "calculate the sample size for a survey",
      "Respondents needed for a margin of error.", "margin_of_error_percent:n:1:10:1@for a margin of {}; "
      "?confidence_level:e:90|95|99=95@at {} % confidence; ?population:i:1000:10000000@from a population of {}"),
    F("surveys", "calculate_margin_of_error", "find the margin of error", "Margin of error of a proportion.",
      "sample_size:i:50:5000@for {} respondents; proportion:n:0.1:0.9:2@with proportion {}; "
      "?confidence_level:e:90|95|99=95@at {} % confidence"),
    F("surveys", "calculate_net_promoter_score", "compute the Net Promoter Score", "NPS from promoters and detractors.",
      "promoters:i:0:500@with {} promoters; passives:i:0:500@{} passives; detractors:i:0:500@and {} detractors",
      lambda a: 100 * (a["promoters"] - a["detractors"]) / max(1, a["promoters"] + a["passives"] + a["detractors"])),
    # logistics
    F("logistics", "calculate_shipping_cost", "estimate the shipping cost", "Cost of a parcel by weight and zone.",
      "weight_kg:n:0.1:70:1@for a {} parcel; zone:e:domestic|europe|international@({}); ?express:b=false@by express"),
    F("logistics", "calculate_dimensional_weight", "compute the dimensional weight of a parcel",
      "Volumetric weight from dimensions in cm.", "dimensions:dims@of a {} cm box; ?divisor:i:4000:6000=5000@with "
      "divisor {}", lambda a: a["dimensions"]["length"] * a["dimensions"]["width"] * a["dimensions"]["height"] /
      a.get("divisor", 5000)),
    F("logistics", "calculate_economic_order_quantity", "find the economic order quantity", "EOQ of an item.",
      "annual_demand:i:100:100000@for demand of {} units a year; order_cost:n:5:500:0@order cost {}; "
      "holding_cost:n:0.5:50:1@and holding cost {} per unit", lambda a: math.sqrt(2 * a["annual_demand"] *
                                                                                 a["order_cost"] / a["holding_cost"])),
    F("logistics", "optimize_delivery_route", "plan the best delivery route", "Stop order that minimises distance.",
      "stops:points@through {}; ?return_to_start:b=true@returning to the start"),
    F("logistics", "calculate_reorder_point", "calculate the reorder point", "Stock level at which to reorder.",
      "daily_demand:n:1:500:0@with daily demand of {}; lead_time_days:i:1:30@a lead time of {} days; "
      "?safety_stock:i:0:500=0@and safety stock {}", lambda a: a["daily_demand"] * a["lead_time_days"] +
      a.get("safety_stock", 0)),
    # construction
    F("construction", "calculate_concrete_volume", "work out how much concrete a slab needs", "Concrete in cubic metres.",
      "length_m:n:1:30:1@for a slab {} long; width_m:n:1:20:1@{} wide; thickness_m:n:0.05:0.4:2@and {} thick",
      lambda a: a["length_m"] * a["width_m"] * a["thickness_m"]),
    F("construction", "calculate_paint_needed", "calculate how much paint I need", "Litres of paint for a wall area.",
      "wall_area_m2:n:5:300:0@for {} of wall; ?coats:i:1:3=2@with {} coats; ?coverage_m2_per_l:n:8:14:0=10@at {} "
      "m² per litre", lambda a: a["wall_area_m2"] * a.get("coats", 2) / a.get("coverage_m2_per_l", 10)),
    F("construction", "calculate_stair_dimensions", "calculate the stair rise and run", "Steps for a floor height.",
      "total_rise_cm:n:200:400:0@for a rise of {}; ?max_step_height_cm:n:16:20:0=18@with steps at most {}"),
    F("construction", "calculate_roof_pitch", "find the roof pitch", "Roof angle from rise and run.",
      "rise_m:n:0.5:5:1@with a rise of {}; run_m:n:2:10:1@over a run of {}",
      lambda a: math.degrees(math.atan(a["rise_m"] / a["run_m"]))),
    F("construction", "estimate_tile_count", "estimate how many tiles are needed", "Tiles for a floor with waste.",
      "floor_area_m2:n:2:100:1@for {}; tile_size_cm:i:10:60@with {} cm tiles; ?waste_percent:n:5:15:0=10@plus {} waste",
      lambda a: math.ceil(a["floor_area_m2"] / (a["tile_size_cm"] / 100) ** 2 * (1 + a.get("waste_percent", 10) / 100))),
    F("construction", "calculate_beam_load", "check the load a beam can carry", "Maximum load of a simply supported beam.",
      "material:s:material@for a {} beam; span_m:n:1:12:1@spanning {}; depth_mm:i:100:600@{} deep"),
    # cooking
    F("cooking", "scale_recipe", "scale a recipe", "Ingredient amounts for a new number of servings.",
      "original_servings:i:1:12@from {} servings; new_servings:i:1:40@to {} servings; ?recipe:e:pancakes|chili|"
      "banana_bread|pizza_dough|lasagna@for {}"),
    F("cooking", "convert_oven_temperature", "convert an oven temperature", "Oven temperature between scales and gas "
      "marks.", "temperature:n:100:260:0@{}; from_scale:e:celsius|fahrenheit|gas_mark@from {}; "
      "to_scale:e:celsius|fahrenheit|gas_mark@to {}"),
    F("cooking", "calculate_cooking_time", "work out the cooking time", "Roasting time by weight.",
      "meat:e:chicken|turkey|beef|pork|lamb@for {}; weight_kg:n:0.5:8:1@weighing {}; ?doneness:e:rare|medium|well_done@"
      "cooked {}"),
    F("cooking", "get_substitute_ingredient", "find a substitute for an ingredient", "Substitutes for an ingredient.",
      "ingredient:e:buttermilk|eggs|butter|baking_powder|cornstarch|heavy_cream@for {}; ?diet:e:vegan|dairy_free|"
      "gluten_free@that is {}"),
    F("cooking", "calculate_nutrition_facts", "calculate the nutrition of a meal", "Calories and macros of foods.",
      "foods:ls:food@of {}; ?portion_grams:i:50:400=100@per {} g"),
    # electrical engineering
    F("electrical_engineering", "calculate_resistor_color_code", "decode a resistor's colour code",
      "Resistance from colour bands.", "bands:ls:color_band@with bands {}"),
    F("electrical_engineering", "calculate_voltage_divider", "calculate the output of a voltage divider",
      "Output voltage of a two-resistor divider.", "input_voltage_v:n:1:48:1@from {}; r1_ohm:n:100:100000:0@with R1 = "
      "{}; r2_ohm:n:100:100000:0@and R2 = {}", lambda a: a["input_voltage_v"] * a["r2_ohm"] / (a["r1_ohm"] +
                                                                                              a["r2_ohm"])),
    F("electrical_engineering", "calculate_rc_time_constant", "find the RC time constant", "Tau = R C in seconds.",
      "resistance_ohm:n:100:1000000:0@with {}; capacitance_uf:n:0.1:1000:1@and {} µF",
      lambda a: a["resistance_ohm"] * a["capacitance_uf"] * 1e-6),
    F("electrical_engineering", "calculate_wire_gauge", "choose a wire gauge", "Smallest AWG for a current and length.",
      "current_a:n:1:100:0@for {}; length_m:n:1:100:0@over {}; ?max_voltage_drop_percent:n:1:5:0=3@with at most {} "
      "drop"),
    F("electrical_engineering", "calculate_battery_life", "estimate the battery life", "Hours a battery lasts at a load.",
      "capacity_mah:n:100:20000:0@for a {} mAh battery; load_ma:n:1:2000:0@at {} mA",
      lambda a: a["capacity_mah"] / a["load_ma"]),
    # music theory
    F("music_theory", "calculate_note_frequency", "find the frequency of a musical note", "Frequency of a note in Hz.",
      "note:s:note@of {}; ?tuning_hz:n:415:445:0=440@with A4 = {}"),
    F("music_theory", "transpose_chord", "transpose a chord", "A chord moved by semitones.",
      "chord:e:C|Am|G7|Dm|Fmaj7|E|Bb@{}; semitones:i:-6:6@by {} semitones"),
    F("music_theory", "get_scale_notes", "list the notes of a scale", "Notes of a scale.",
      "root:e:C|D|E|F|G|A|B@in {}; scale:e:major|minor|dorian|pentatonic|blues@({})"),
    F("music_theory", "calculate_bpm_delay", "compute the delay time for a tempo", "Milliseconds per note at a BPM.",
      "bpm:i:60:200@at {} BPM; ?note_value:e:quarter|eighth|sixteenth=quarter@for a {} note"),
    # photography
    F("photography", "calculate_exposure_value", "calculate the exposure value", "EV from aperture and shutter speed.",
      "aperture:n:1.4:22:1@at f/{}; shutter_speed_s:n:0.001:2:3@and {}",
      lambda a: math.log2(a["aperture"] ** 2 / a["shutter_speed_s"])),
    F("photography", "calculate_depth_of_field", "compute the depth of field", "Near and far limits of sharpness.",
      "focal_length_mm:n:14:400:0@with a {} lens; aperture:n:1.4:22:1@at f/{}; subject_distance_m:n:0.5:50:1@focused at "
      "{}"),
    F("photography", "calculate_print_size", "work out the largest print size", "Print size in cm at a DPI.",
      "width_px:i:1000:8000@for an image {} wide; height_px:i:800:6000@and {} high; ?dpi:i:150:600=300@at {} dpi"),
    F("photography", "calculate_crop_factor_focal_length", "find the equivalent focal length", "Full-frame equivalent.",
      "focal_length_mm:n:10:300:0@of a {} lens; crop_factor:n:1.3:2.7:1@with crop factor {}",
      lambda a: a["focal_length_mm"] * a["crop_factor"]),
    # color
    F("color", "convert_hex_to_rgb", "convert a hex colour to RGB", "RGB components of a hex colour.",
      "hex_color:s:hex@{}", lambda a: [int(a["hex_color"][i:i + 2], 16) for i in (1, 3, 5)]),
    F("color", "calculate_contrast_ratio", "check the contrast ratio of two colours", "WCAG contrast ratio.",
      "foreground:s:hex@between {}; background:s:hex@and {}"),
    F("color", "generate_color_palette", "generate a colour palette", "Harmonious colours from a base colour.",
      "base_color:s:hex@from {}; scheme:e:complementary|analogous|triadic|monochromatic@({}); ?count:i:3:8=5@with {} "
      "colours"),
    # aviation
    F("aviation", "calculate_flight_time", "estimate the flight time", "Hours for a distance at a cruise speed.",
      "distance_km:n:200:15000:0@for {}; cruise_speed_kmh:n:400:950:0@at {}",
      lambda a: a["distance_km"] / a["cruise_speed_kmh"]),
    F("aviation", "calculate_fuel_required", "calculate the fuel needed for a flight", "Fuel from burn rate and time.",
      "burn_rate_l_per_hour:n:20:5000:0@burning {} litres an hour; flight_hours:n:0.5:14:1@for {} hours; "
      "?reserve_minutes:i:30:60=45@plus {} minutes reserve"),
    F("aviation", "get_metar", "get the METAR weather report for an airport", "Current METAR of an airport.",
      "icao_code:e:EGLL|KJFK|LFPG|EDDF|RJTT|KSFO|YSSY@for {}; ?decoded:b=false@decoded into plain words"),
    F("aviation", "calculate_crosswind_component", "compute the crosswind component", "Crosswind on a runway.",
      "wind_speed_kn:n:5:40:0@for wind at {} knots; wind_angle_deg:n:0:90:0@at {} degrees off the runway",
      lambda a: a["wind_speed_kn"] * math.sin(math.radians(a["wind_angle_deg"]))),
    # maritime
    F("maritime", "calculate_hull_speed", "calculate a boat's hull speed", "Hull speed in knots from waterline length.",
      "waterline_length_ft:n:15:80:0@for a {} ft waterline", lambda a: 1.34 * math.sqrt(a["waterline_length_ft"])),
    F("maritime", "convert_nautical_miles", "convert nautical miles to kilometres", "Nautical miles in km.",
      "nautical_miles:n:1:3000:1@{}", lambda a: a["nautical_miles"] * 1.852),
    F("maritime", "get_tide_forecast", "get the tide forecast for a port", "Tides for the next days.",
      "port:e:Dover|Brest|Portsmouth|Boston|Sydney|Cape_Town@at {}; ?days:i:1:7=3@for {} days; "
      "?include_moon_phase:b=false@including the moon phase"),
    # agriculture
    F("agriculture", "calculate_crop_yield", "estimate the crop yield", "Harvest from area and yield per hectare.",
      "crop:s:crop@of {}; area_ha:n:1:500:1@on {} hectares; yield_t_per_ha:n:1:12:1@at {} t/ha",
      lambda a: a["area_ha"] * a["yield_t_per_ha"]),
    F("agriculture", "calculate_fertilizer_amount", "calculate how much fertiliser to apply", "Fertiliser for a target "
      "nitrogen rate.", "area_ha:n:1:200:1@for {} hectares; nitrogen_kg_per_ha:n:20:250:0@at {} kg N per hectare; "
      "nitrogen_percent:n:10:46:0@with a {} % N fertiliser"),
    F("agriculture", "calculate_irrigation_need", "estimate the irrigation water needed", "Water need from "
      "evapotranspiration and rain.", "crop:s:crop@for {}; area_ha:n:1:100:0@over {} hectares; "
      "evapotranspiration_mm:n:2:9:1@with ET of {} mm a day; ?rainfall_mm:n:0:20:0=0@and {} mm of rain"),
    # gardening
    F("gardening", "get_planting_calendar", "get the planting dates for a plant", "When to sow and plant.",
      "plant:s:plant@for {}; ?hardiness_zone:i:3:11@in zone {}; ?include_harvest:b=false@with harvest dates"),
    F("gardening", "calculate_soil_volume", "compute how much soil a raised bed needs", "Soil in litres for a bed.",
      "dimensions:dims@for a {} cm bed", lambda a: a["dimensions"]["length"] * a["dimensions"]["width"] *
      a["dimensions"]["height"] / 1000),
    F("gardening", "calculate_plant_spacing", "work out how many plants fit in a bed", "Plants for an area and spacing.",
      "area_m2:n:1:50:1@in {}; spacing_cm:n:10:80:0@spaced {} apart",
      lambda a: math.floor(a["area_m2"] / (a["spacing_cm"] / 100) ** 2)),
    # veterinary
    F("veterinary", "convert_dog_age", "convert a dog's age to human years", "A dog's age in human years.",
      "dog_age_years:n:1:18:0@for a {} old dog; ?size:e:small|medium|large=medium@({} breed)"),
    F("veterinary", "calculate_pet_food_portion", "calculate a pet's daily food portion", "Grams of food per day.",
      "species:e:dog|cat@for a {}; weight_kg:n:1:60:1@weighing {}; ?activity:e:low|normal|high=normal@with {} activity"),
    F("veterinary", "get_breed_info", "look up information about a dog breed", "Size, lifespan and temperament.",
      "breed:s:dog_breed@about the {}; ?details:le:Size|Lifespan|Temperament|Grooming|Exercise Needs@covering {}; "
      "?include_health_issues:b=false@including common health issues"),
    # retail pricing
    F("retail_pricing", "calculate_discount_price", "work out the discounted price", "Price after a percentage discount.",
      "price:n:1:2000:2@of an item at {}; discount_percent:n:5:80:0@with {} off",
      lambda a: a["price"] * (1 - a["discount_percent"] / 100)),
    F("retail_pricing", "calculate_markup", "compute the markup", "Markup over cost, in percent.",
      "cost:n:1:500:2@costing {}; selling_price:n:501:1500:2@sold at {}",
      lambda a: (a["selling_price"] - a["cost"]) / a["cost"] * 100),
    F("retail_pricing", "calculate_unit_price", "calculate the unit price", "Price per unit of quantity.",
      "price:n:0.5:100:2@for {}; quantity:n:1:2000:0@for {} units", lambda a: a["price"] / a["quantity"]),
    F("retail_pricing", "compare_prices_per_unit", "compare two offers by unit price", "Which offer is cheaper per "
      "unit.", "price_a:n:0.5:50:2@{}; quantity_a:n:100:1000:0@for {} g; price_b:n:0.5:50:2@versus {}; "
      "quantity_b:n:100:1000:0@for {} g"),
    # payroll
    F("payroll", "calculate_overtime_pay", "calculate the overtime pay", "Pay for overtime hours.",
      "hourly_rate:n:10:80:2@at {} an hour; overtime_hours:n:1:30:1@for {} overtime hours; ?multiplier:n:1.25:2:2=1.5@"
      "at {} times", lambda a: a["hourly_rate"] * a["overtime_hours"] * a.get("multiplier", 1.5)),
    F("payroll", "convert_salary_to_hourly", "convert a salary to an hourly wage", "Hourly wage from yearly salary.",
      "annual_salary:n:15000:250000:0@earning {} a year; ?hours_per_week:n:20:60:0=40@working {} hours a week",
      lambda a: a["annual_salary"] / (52 * a.get("hours_per_week", 40))),
    F("payroll", "calculate_net_pay", "estimate the take-home pay", "Net pay after tax and deductions.",
      "gross_pay:n:1000:20000:0@from {} gross; tax_rate:r:5:45:0@taxed at {}; ?deductions:n:0:1000:0=0@minus {}",
      lambda a: a["gross_pay"] * (1 - a["tax_rate"]) - a.get("deductions", 0)),
    # business metrics
    F("business_metrics", "calculate_customer_lifetime_value", "compute the customer lifetime value", "CLV.",
      "average_order_value:n:10:500:2@with orders of {}; orders_per_year:n:1:24:0@{} orders a year; "
      "retention_years:n:1:10:1@kept for {} years", lambda a: a["average_order_value"] * a["orders_per_year"] *
      a["retention_years"]),
    F("business_metrics", "calculate_churn_rate", "calculate the churn rate", "Customers lost over customers at start.",
      "customers_start:i:100:100000@starting with {} customers; customers_lost:i:1:99@losing {}",
      lambda a: a["customers_lost"] / a["customers_start"] * 100),
    F("business_metrics", "calculate_conversion_rate", "work out the conversion rate", "Conversions over visitors, %.",
      "visitors:i:100:1000000@from {} visitors; conversions:i:1:99@with {} conversions",
      lambda a: a["conversions"] / a["visitors"] * 100),
    F("business_metrics", "calculate_burn_rate", "compute the monthly burn rate and runway", "Burn rate and runway.",
      "cash_balance:n:10000:5000000:0@with {} in the bank; monthly_expenses:n:5000:500000:0@spending {} a month; "
      "?monthly_revenue:n:0:4000:0=0@earning {} a month"),
    # marketing analytics
    F("marketing_analytics", "calculate_cpc", "calculate the cost per click", "Ad spend over clicks.",
      "ad_spend:n:10:100000:2@for {} spent; clicks:i:1:100000@getting {} clicks", lambda a: a["ad_spend"] / a["clicks"]),
    F("marketing_analytics", "calculate_roas", "compute the return on ad spend", "Revenue over ad spend.",
      "revenue:n:100:500000:2@with revenue of {}; ad_spend:n:10:100000:2@from {} of ads",
      lambda a: a["revenue"] / a["ad_spend"]),
    F("marketing_analytics", "calculate_click_through_rate", "find the click-through rate", "Clicks over impressions, %.",
      "clicks:i:1:5000@with {} clicks; impressions:i:5001:1000000@from {} impressions",
      lambda a: a["clicks"] / a["impressions"] * 100),
    F("marketing_analytics", "calculate_email_open_rate", "work out the email open rate", "Opens over delivered, %.",
      "opens:i:1:5000@with {} opens; delivered:i:5001:100000@out of {} delivered",
      lambda a: a["opens"] / a["delivered"] * 100),
    # games and chance
    F("board_games", "roll_dice", "roll some dice", "Random dice rolls.", "count:i:1:10@{} dice; ?sides:i:4:20=6@with {} "
      "sides"),
    F("board_games", "shuffle_deck", "shuffle a deck and deal cards", "Cards dealt from a shuffled deck.",
      "hands:i:1:8@into {} hands; cards_per_hand:i:1:13@of {} cards"),
    F("board_games", "calculate_poker_odds", "compute poker hand odds", "Win probability of a hold'em hand.",
      "hand:e:AA|KK|AKs|QJo|72o|T9s|55@with {}; opponents:i:1:8@against {} opponents"),
    F("chess", "get_opening_info", "look up a chess opening", "Moves and ideas of an opening.",
      "opening:s:chess_opening@about the {}; ?depth:i:2:12=6@to {} moves; "
      "?include_variations:b=false@including its main variations"),
    F("chess", "calculate_expected_score", "compute the expected chess score", "Elo expected score of a player.",
      "rating:i:800:2800@for a {} player; opponent_rating:i:800:2800@against {}",
      lambda a: 1 / (1 + 10 ** ((a["opponent_rating"] - a["rating"]) / 400))),
    F("lottery", "calculate_lottery_odds", "calculate the odds of winning a lottery", "Odds of matching all numbers.",
      "numbers_drawn:i:3:7@drawing {}; pool_size:i:20:70@from {} numbers", lambda a: math.comb(a["pool_size"],
                                                                                             a["numbers_drawn"])),
    F("random_tools", "generate_random_numbers", "generate random numbers", "Random integers in a range.",
      "count:i:1:20@{}; minimum:i:0:50@between {}; maximum:i:51:1000@and {}; ?unique:b=false@all different"),
    F("random_tools", "pick_random_item", "pick a random item from a list", "One item chosen at random.",
      "items:ls:food@from {}"),
    # transport and travel planning
    F("trip_planning", "calculate_trip_fuel_cost", "work out the fuel cost of a road trip", "Fuel cost of a trip.",
      "distance_km:n:10:3000:0@for {}; consumption_l_per_100km:n:3:15:1@at {} l/100km; fuel_price:n:1:2.5:2@with fuel "
      "at {} per litre", lambda a: a["distance_km"] * a["consumption_l_per_100km"] / 100 * a["fuel_price"]),
    F("trip_planning", "calculate_travel_budget", "plan a travel budget", "Total cost of a trip.",
      "days:i:1:30@for {} days; daily_spend:n:30:400:0@spending {} a day; ?flights:n:0:2000:0=0@plus {} in flights",
      lambda a: a["days"] * a["daily_spend"] + a.get("flights", 0)),
    F("trip_planning", "get_visa_requirements", "check the visa requirements", "Visa rules between two countries.",
      "citizenship:s:country@for a citizen of {}; destination:s:country@travelling to {}; "
      "?visa_types:le:Tourist|Business|Student|Transit|Work@for {} visas; ?include_fees:b=false@including the fees"),
    F("ev_charging", "calculate_charging_time", "estimate the charging time of an electric car", "Hours to charge.",
      "battery_kwh:n:20:120:0@for a {} battery; charger_kw:n:3:350:0@on a {} kW charger; ?from_percent:n:0:50:0=20@from "
      "{} %; ?to_percent:n:60:100:0=80@to {} %"),
    F("ev_charging", "calculate_charging_cost", "work out the cost of charging", "Cost of energy for a charge.",
      "energy_kwh:n:5:100:1@for {}; price_per_kwh:n:0.1:0.8:2@at {} per kWh",
      lambda a: a["energy_kwh"] * a["price_per_kwh"]),
    F("public_transit", "plan_transit_route", "plan a public transit route", "Connections between two places.",
      "origin:s:city@from central {}; destination:e:airport|main_station|university|old_town@to the {}; "
      "?departure_time:time@leaving at {}"),
    F("public_transit", "get_next_departures", "get the next departures from a stop", "Upcoming departures.",
      "stop:e:Central_Station|Market_Square|Harbour|North_Gate@from {}; ?limit:i:1:10=5@(next {}); "
      "?realtime:b=true@with live times"),
    F("parking", "calculate_parking_fee", "calculate the parking fee", "Fee for a stay at an hourly rate.",
      "hours:n:0.5:24:1@for {} hours; hourly_rate:n:1:8:2@at {} an hour; ?daily_cap:n:10:40:0@capped at {} a day"),
    # running, cycling, swimming
    F("running", "calculate_running_pace_per_km", "calculate the running pace", "Minutes per kilometre.",
      "distance_km:n:1:42.2:1@for {}; time_minutes:n:5:300:0@in {} minutes",
      lambda a: a["time_minutes"] / a["distance_km"]),
    F("running", "predict_race_time", "predict a race time", "Riegel prediction from a recent race.",
      "known_distance_km:n:5:21.1:1@from a {} race; known_time_minutes:n:15:150:0@run in {} minutes; "
      "target_distance_km:n:5:42.2:1@for {}", lambda a: a["known_time_minutes"] * (a["target_distance_km"] /
                                                                                    a["known_distance_km"]) ** 1.06),
    F("cycling", "calculate_cycling_power", "estimate cycling power", "Watts to hold a speed on flat ground.",
      "speed_kmh:n:15:45:0@at {}; rider_weight_kg:n:45:110:0@for a {} rider; ?bike_weight_kg:n:6:15:0=9@on a {} bike"),
    F("cycling", "calculate_gear_ratio", "compute a bike gear ratio", "Chainring teeth over sprocket teeth.",
      "chainring_teeth:i:30:56@with a {}-tooth chainring; sprocket_teeth:i:11:36@and a {}-tooth sprocket",
      lambda a: a["chainring_teeth"] / a["sprocket_teeth"]),
    F("swimming", "calculate_swim_pace", "calculate the swim pace", "Seconds per 100 metres.",
      "distance_m:n:100:5000:0@for {}; time_minutes:n:1:120:1@in {} minutes",
      lambda a: a["time_minutes"] * 60 / a["distance_m"] * 100),
    F("sleep", "calculate_bedtime", "work out when to go to bed", "Bedtimes that end on a full sleep cycle.",
      "wake_time:time@to wake up at {}; ?cycles:i:4:6=5@for {} sleep cycles"),
    F("nutrition", "calculate_macros", "calculate daily macros", "Protein, carbs and fat for a calorie goal.",
      "calories:i:1200:4000@for {} kcal; goal:e:lose|maintain|gain@to {} weight"),
    F("nutrition", "calculate_calories_burned", "estimate the calories burned", "kcal from MET, weight and time.",
      "activity:e:walking|running|cycling|swimming|yoga@{}; weight_kg:n:40:140:0@for someone of {}; "
      "duration_minutes:i:10:180@for {} minutes"),
    F("brewing", "calculate_abv", "calculate the alcohol by volume", "ABV from original and final gravity.",
      "original_gravity:n:1.03:1.1:3@with OG {}; final_gravity:n:1:1.02:3@and FG {}",
      lambda a: (a["original_gravity"] - a["final_gravity"]) * 131.25),
    F("brewing", "calculate_coffee_ratio", "work out the coffee to water ratio", "Grams of coffee for a brew.",
      "water_ml:n:100:2000:0@for {} of water; ?ratio:n:12:18:0=16@at 1:{}",
      lambda a: a["water_ml"] / a.get("ratio", 16)),
    # work and organisations
    F("hr_analytics", "calculate_turnover_rate", "calculate the employee turnover rate", "Leavers over average headcount.",
      "leavers:i:1:200@with {} leavers; average_headcount:i:201:5000@and an average headcount of {}",
      lambda a: a["leavers"] / a["average_headcount"] * 100),
    F("hr_analytics", "calculate_pto_accrual", "work out the paid time off accrued", "Hours of PTO accrued.",
      "hours_worked:n:40:2080:0@after {} hours worked; accrual_rate:n:0.02:0.1:3@at {} hours per hour",
      lambda a: a["hours_worked"] * a["accrual_rate"]),
    F("project_management", "estimate_pert_duration", "estimate a PERT task duration", "Expected duration.",
      "optimistic_days:n:1:10:0@with optimistic {} days; most_likely_days:n:5:20:0@most likely {} days; "
      "pessimistic_days:n:15:60:0@and pessimistic {} days", lambda a: (a["optimistic_days"] + 4 * a["most_likely_days"]
                                                                      + a["pessimistic_days"]) / 6),
    F("project_management", "calculate_earned_value", "compute the earned value metrics", "CPI and SPI of a project.",
      "planned_value:n:1000:100000:0@with PV {}; earned_value:n:1000:100000:0@EV {}; actual_cost:n:1000:100000:0@and AC "
      "{}"),
    F("project_management", "calculate_team_velocity", "calculate the team velocity", "Average story points a sprint.",
      "points_per_sprint:li:10:60@from sprints of {} points", lambda a: sum(a["points_per_sprint"]) /
      len(a["points_per_sprint"])),
    F("inventory", "calculate_safety_stock", "compute the safety stock", "Safety stock for a service level.",
      "demand_std_dev:n:1:100:1@with daily demand varying by {}; lead_time_days:i:1:30@lead time {} days; "
      "?service_level:e:90|95|99=95@for {} % service"),
    F("inventory", "calculate_days_of_inventory", "find how many days the stock lasts", "Stock over daily demand.",
      "stock_units:i:10:100000@with {} units; daily_demand:n:1:2000:0@selling {} a day",
      lambda a: a["stock_units"] / a["daily_demand"]),
    F("manufacturing", "calculate_oee", "calculate the overall equipment effectiveness", "OEE in percent.",
      "availability_percent:n:50:100:0@with availability {}; performance_percent:n:50:100:0@performance {}; "
      "quality_percent:n:80:100:0@and quality {}", lambda a: a["availability_percent"] * a["performance_percent"] *
      a["quality_percent"] / 10000),
    F("manufacturing", "calculate_cycle_time", "compute the cycle time", "Seconds per unit.",
      "production_time_minutes:n:10:1000:0@for {} minutes; units:i:1:10000@making {} units",
      lambda a: a["production_time_minutes"] * 60 / a["units"]),
    F("quality_control", "calculate_defect_rate", "calculate the defect rate", "Defects per million opportunities.",
      "defects:i:0:500@with {} defects; units:i:1000:1000000@in {} units; ?opportunities_per_unit:i:1:10=1@and {} "
      "opportunities each", lambda a: a["defects"] / (a["units"] * a.get("opportunities_per_unit", 1)) * 1e6),
    F("quality_control", "calculate_process_capability", "compute the process capability index", "Cpk of a process.",
      "mean:n:9:11:2@with mean {}; std_dev:n:0.05:0.5:2@standard deviation {}; lower_limit:n:8:9:1@and limits {}; "
      "upper_limit:n:11:12:1@to {}", lambda a: min(a["upper_limit"] - a["mean"], a["mean"] - a["lower_limit"]) /
      (3 * a["std_dev"])),
    # media
    F("telecom", "estimate_data_usage", "estimate mobile data usage", "GB a month from daily habits.",
      "streaming_hours_per_day:n:0:6:1@with {} hours of streaming a day; ?quality:e:sd|hd|4k=hd@in {}"),
    F("video_production", "calculate_video_file_size", "estimate a video file size", "Size from bitrate and length.",
      "bitrate_mbps:n:1:100:0@at {}; duration_minutes:n:1:180:0@for {} minutes",
      lambda a: a["bitrate_mbps"] * a["duration_minutes"] * 60 / 8),
    F("video_production", "convert_frame_rate", "convert frames to a timecode", "Timecode of a frame at a rate.",
      "frames:i:1:500000@{} frames; fps:e:24|25|30|50|60@at {} fps"),
    F("audio_engineering", "calculate_decibel_sum", "add sound levels in decibels", "Combined level of sources in dB.",
      "levels_db:ln:40:100:0@of {}", lambda a: 10 * math.log10(sum(10 ** (x / 10) for x in a["levels_db"]))),
    F("audio_engineering", "calculate_audio_file_size", "work out the size of an audio file", "MB of uncompressed audio.",
      "duration_s:n:1:3600:0@for {}; sample_rate_hz:e:44100|48000|96000@at {} Hz; ?bit_depth:e:16|24|32=16@and {} bit; "
      "?channels:i:1:2=2@with {} channels"),
    F("typography", "convert_points_to_pixels", "convert font points to pixels", "Pixels of a point size at a DPI.",
      "points:n:6:72:0@{} pt; ?dpi:i:72:300=96@at {} dpi", lambda a: a["points"] * a.get("dpi", 96) / 72),
    F("printing", "calculate_paper_needed", "work out how much paper a print job needs", "Sheets for a print run.",
      "pages:i:1:500@for {} pages; copies:i:1:500@and {} copies; ?double_sided:b=false@printed double-sided"),
    F("textiles", "calculate_fabric_yardage", "calculate how much fabric is needed", "Metres of fabric for a project.",
      "fabric:s:fabric@of {}; project:e:curtains|dress|quilt|tablecloth|cushion_covers@for {}; ?width_cm:i:110:150=140@"
      "on a {} cm bolt"),
    F("event_planning", "calculate_catering_quantities", "work out catering quantities for an event", "Food and drinks "
      "per guest.", "guests:i:10:500@for {} guests; duration_hours:n:1:8:1@over {} hours; ?meal:e:buffet|plated|"
      "canapes=buffet@with a {}"),
    F("event_planning", "calculate_venue_capacity", "calculate how many people fit in a venue", "Capacity by layout.",
      "area_m2:n:50:2000:0@in {}; layout:e:theatre|banquet|standing|classroom@with {} seating"),
    # civic and society
    F("demographics", "calculate_population_density", "calculate population density", "People per square km.",
      "population:i:1000:40000000@with {} people; area_km2:n:10:100000:0@over {} square km",
      lambda a: a["population"] / a["area_km2"]),
    F("demographics", "calculate_dependency_ratio", "compute the dependency ratio", "Dependants per 100 of working age.",
      "young:i:1000:1000000@with {} children; old:i:1000:1000000@{} retirees; working_age:i:1000000:5000000@and "
      "{} of working age", lambda a: (a["young"] + a["old"]) / a["working_age"] * 100),
    F("elections", "calculate_vote_share", "calculate a candidate's vote share", "Votes over total votes, %.",
      "votes:i:100:1000000@with {} votes; total_votes:i:1000001:5000000@out of {}",
      lambda a: a["votes"] / a["total_votes"] * 100),
    F("elections", "allocate_seats_dhondt", "allocate seats with the D'Hondt method", "Seats per party from votes.",
      "votes:li:1000:90000@for party votes {}; seats:i:3:20@for {} seats"),
    F("legal", "calculate_statute_deadline", "find a filing deadline", "Last day to file from an event date.",
      "event_date:date@from {}; period_days:i:10:1095@with a limit of {}"),
    F("legal", "calculate_late_payment_interest", "compute interest on a late payment", "Statutory late interest.",
      "amount:n:100:100000:2@on {}; days_late:i:1:365@{} days late; interest_rate:r:2:12:1@at {}",
      lambda a: a["amount"] * a["interest_rate"] * a["days_late"] / 365),
    F("language_learning", "conjugate_verb", "conjugate a verb", "Conjugation of a verb in a tense.",
      "verb:e:être|tener|haben|essere|ir|avoir@{}; tense:e:present|past|future@in the {} tense"),
    F("language_learning", "get_word_of_the_day", "get a word of the day", "A word with its meaning and example.",
      "language:s:language@in {}; ?level:e:beginner|intermediate|advanced@for a {} learner; "
      "?include_examples:b=true@with example sentences"),
    F("astrology", "get_zodiac_sign", "find the zodiac sign for a birthday", "Western zodiac sign of a date.",
      "birth_date:date@for someone born on {}"),
    F("hiking", "calculate_hiking_time", "estimate a hike's duration", "Naismith's rule from distance and climb.",
      "distance_km:n:1:40:1@for {}; ascent_m:n:0:2000:0@with {} of climbing",
      lambda a: a["distance_km"] / 5 + a["ascent_m"] / 600),
    F("fishing", "get_fishing_regulations", "look up the fishing rules", "Seasons and limits for a species and region.",
      "species:e:trout|salmon|bass|pike|cod@for {}; region:s:country@in {}; ?detailed:b=false@in detail"),
    F("home_improvement", "calculate_insulation_savings", "estimate savings from insulation", "Yearly energy savings.",
      "area_m2:n:20:300:0@for {}; old_u_value:n:0.5:3:2@from U = {}; new_u_value:n:0.1:0.45:2@to {}; "
      "?heating_degree_days:i:1500:5000=2500@with {} degree days"),
    F("home_improvement", "calculate_wallpaper_rolls", "work out how many wallpaper rolls are needed", "Rolls for a room.",
      "wall_perimeter_m:n:6:40:1@for walls {} around; wall_height_m:n:2:4:1@{} high; ?roll_coverage_m2:n:4:6:1=5.3@at {} "
      "m² a roll", lambda a: math.ceil(a["wall_perimeter_m"] * a["wall_height_m"] / a.get("roll_coverage_m2", 5.3))),
    F("energy_grid", "calculate_appliance_energy_cost", "calculate how much an appliance costs to run",
      "Running cost from power, hours and price.", "power_w:n:5:3000:0@for a {} appliance; hours_per_day:n:0.5:24:1@used "
      "{} hours a day; price_per_kwh:n:0.1:0.6:2@at {} per kWh; ?days:i:1:365=30@over {} days",
      lambda a: a["power_w"] / 1000 * a["hours_per_day"] * a["price_per_kwh"] * a.get("days", 30)),
    F("energy_grid", "calculate_peak_load", "calculate the peak load of a building", "Peak kW from appliances.",
      "appliance_watts:ln:50:3000:0@for appliances of {} W; ?diversity_factor:n:0.5:1:2=0.7@with diversity {}"),
)

"""Function table, money and data: finance, business, units, dates, text, encoding, lists, networks, computing.

One `F(domain, name, ask, doc, params, compute)` row per base function (see library.py for the parameter spec).

Run: `python -c "from data_recipes.synthetic.fn_applied import FUNCTIONS; print(len(FUNCTIONS))"`.
Left out: functions whose answer depends on live data (those are everyday APIs in domains.py).
"""

from __future__ import annotations

import base64
import datetime as dt

from data_recipes.synthetic.fn_everyday import FUNCTIONS as EVERYDAY
from data_recipes.synthetic.library import F


def _days(a):
    return (dt.date.fromisoformat(a["end_date"]) - dt.date.fromisoformat(a["start_date"])).days


def _payment(a):
    r, n = a["annual_rate_percent"] / 1200, a["years"] * 12
    return a["principal"] / n if r == 0 else a["principal"] * r / (1 - (1 + r) ** -n)


_LEN = {"mm": 0.001, "cm": 0.01, "m": 1, "km": 1000, "in": 0.0254, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344}
_MASS = {"mg": 1e-6, "g": 0.001, "kg": 1, "oz": 0.028349523, "lb": 0.45359237, "t": 1000}
_VOL = {"ml": 0.001, "l": 1, "tsp": 0.00492892, "tbsp": 0.0147868, "cup": 0.2365882, "gal": 3.785412}
_AREA = {"m2": 1, "km2": 1e6, "ha": 1e4, "acre": 4046.856, "ft2": 0.09290304}
_ENERGY = {"j": 1, "kj": 1000, "cal": 4.184, "kcal": 4184, "kwh": 3.6e6, "btu": 1055.056}
_PRESSURE = {"pa": 1, "kpa": 1000, "bar": 1e5, "atm": 101325, "psi": 6894.757}
_SPEED = {"kmh": 1 / 3.6, "mph": 0.44704, "mps": 1, "knots": 0.514444}
_DATA = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}


def _conv(table):
    return lambda a: a["value"] * table[a["from_unit"]] / table[a["to_unit"]]


def _units(table) -> str:
    return "|".join(table)


FUNCTIONS = EVERYDAY + (
    # personal finance
    F("personal_finance", "calculate_compound_interest_amount", "calculate the compound interest",
      "Final amount of a deposit with compound interest.", "principal:n:100:100000:0@on {}; "
      "interest_rate:r:0.5:12:1@at {} a year; years:i:1:40@for {} years; ?compounds_per_year:i:1:12=1@compounded {} "
      "times a year", lambda a: a["principal"] * (1 + a["interest_rate"] / a.get("compounds_per_year", 1)) **
      (a.get("compounds_per_year", 1) * a["years"])),
    F("personal_finance", "calculate_simple_interest", "work out the simple interest", "Simple interest earned.",
      "principal:n:100:50000:0@on {}; rate:r:0.5:12:1@at {}; years:n:0.5:20:1@over {} years",
      lambda a: a["principal"] * a["rate"] * a["years"]),
    F("personal_finance", "calculate_savings_goal", "figure out the monthly savings for a goal",
      "Monthly deposit needed to reach a goal.", "goal_amount:n:1000:100000:0@to save {}; months:i:3:120@in {} months; "
      "?current_savings:n:0:5000:0=0@starting from {}",
      lambda a: (a["goal_amount"] - a.get("current_savings", 0)) / a["months"]),
    F("personal_finance", "calculate_emergency_fund", "calculate an emergency fund target",
      "Emergency fund from monthly expenses.", "monthly_expenses:n:500:10000:0@for expenses of {} a month; "
      "?months:i:3:12=6@covering {} months", lambda a: a["monthly_expenses"] * a.get("months", 6)),
    F("personal_finance", "split_bill", "split a bill", "Each person's share of a bill with tip.",
      "total:n:10:800:2@of {}; people:i:2:12@between {} people; ?tip_percent:n:0:25:0=0@with a {} tip",
      lambda a: a["total"] * (1 + a.get("tip_percent", 0) / 100) / a["people"]),
    F("personal_finance", "calculate_net_worth", "calculate net worth", "Assets minus liabilities.",
      "assets:ln:1000:300000:0@with assets {}; liabilities:ln:100:200000:0@and debts {}",
      lambda a: sum(a["assets"]) - sum(a["liabilities"])),
    F("personal_finance", "calculate_total_expenses", "add up the monthly expenses", "Sum of the expenses by category.",
      "expenses:expenses@for {}", lambda a: sum(a["expenses"].values()), result="total"),
    F("personal_finance", "find_largest_expense", "find the largest expense", "Category with the largest amount.",
      "expenses:expenses@among {}", lambda a: max(a["expenses"], key=a["expenses"].get), result="category"),
    # loans
    F("loans", "calculate_monthly_payment", "calculate the monthly loan payment", "Monthly payment of an amortised loan.",
      "principal:n:1000:500000:0@for a loan of {}; annual_rate_percent:n:1:15:2@at {}; years:i:1:30@over {} years",
      _payment),
    F("loans", "calculate_total_interest", "work out the total interest on a loan",
      "Total interest paid over an amortised loan's life.", "principal:n:1000:500000:0@on {}; "
      "annual_rate_percent:n:1:15:2@at {}; years:i:1:30@for {} years",
      lambda a: _payment(a) * a["years"] * 12 - a["principal"]),
    F("loans", "calculate_loan_to_value", "compute the loan-to-value ratio", "Loan amount over property value, in %.",
      "loan_amount:n:10000:900000:0@for a loan of {}; property_value:n:100000:1500000:0@on a property worth {}",
      lambda a: a["loan_amount"] / a["property_value"] * 100),
    F("loans", "calculate_debt_to_income", "calculate the debt-to-income ratio", "Monthly debt over gross income, in %.",
      "monthly_debt:n:100:5000:0@with debts of {} a month; monthly_income:n:2000:20000:0@and income of {}",
      lambda a: a["monthly_debt"] / a["monthly_income"] * 100),
    F("loans", "generate_amortization_schedule", "generate an amortization schedule", "Payment-by-payment schedule.",
      "principal:n:1000:500000:0@for {}; annual_rate_percent:n:1:15:2@at {}; years:i:1:30@over {} years; "
      "?extra_payment:n:0:500:0=0@with {} extra each month"),
    # investing
    F("investing", "calculate_roi", "calculate the return on investment", "ROI in percent.",
      "initial_investment:n:100:100000:0@on {}; final_value:n:100:200000:0@now worth {}",
      lambda a: (a["final_value"] - a["initial_investment"]) / a["initial_investment"] * 100),
    F("investing", "calculate_cagr", "compute the compound annual growth rate", "CAGR in percent.",
      "start_value:n:100:100000:0@from {}; end_value:n:100:300000:0@to {}; years:i:1:30@over {} years",
      lambda a: ((a["end_value"] / a["start_value"]) ** (1 / a["years"]) - 1) * 100),
    F("investing", "calculate_future_value", "find the future value of an investment",
      "Future value of a lump sum.", "present_value:n:100:100000:0@of {}; interest_rate:r:1:12:1@at {}; "
      "years:i:1:40@after {} years", lambda a: a["present_value"] * (1 + a["interest_rate"]) ** a["years"]),
    F("investing", "calculate_sharpe_ratio", "compute the Sharpe ratio", "Excess return per unit of volatility.",
      "portfolio_return:r:1:20:1@with a return of {}; risk_free_rate:r:0:5:1@risk-free rate {}; "
      "volatility:r:2:40:1@and volatility {}", lambda a: (a["portfolio_return"] - a["risk_free_rate"]) / a["volatility"]),
    F("investing", "calculate_dividend_yield", "work out the dividend yield", "Annual dividend over price, in %.",
      "annual_dividend:n:0.1:10:2@paying {} a year; share_price:n:5:500:2@at a price of {}",
      lambda a: a["annual_dividend"] / a["share_price"] * 100),
    F("investing", "get_stock_quote", "get a stock quote", "Latest quote for a ticker.",
      "ticker:s:ticker@for {}; ?exchange:e:NASDAQ|NYSE|LSE@on {}; "
      "?fields:le:price|volume|market_cap|pe_ratio|dividend_yield@showing the {}; "
      "?extended_hours:b=false@including extended-hours trading"),
    F("investing", "rebalance_portfolio", "rebalance a portfolio", "Trades that restore target weights.",
      "holdings:items@holding {}; target_stock_percent:n:30:90:0@to {} % stocks"),
    # corporate finance
    F("corporate_finance", "calculate_npv", "calculate the net present value", "NPV of cash flows at a discount rate.",
      "cash_flows:ln:-5000:5000:0@of cash flows {}; discount_rate:r:1:15:1@at {}",
      lambda a: sum(c / (1 + a["discount_rate"]) ** i for i, c in enumerate(a["cash_flows"]))),
    F("corporate_finance", "calculate_irr", "compute the internal rate of return", "IRR of a series of cash flows.",
      "cash_flows:ln:-5000:5000:0@for cash flows {}"),
    F("corporate_finance", "calculate_payback_period", "find the payback period", "Years to recover an investment.",
      "investment:n:1000:100000:0@of {}; annual_cash_flow:n:100:30000:0@returning {} a year",
      lambda a: a["investment"] / a["annual_cash_flow"]),
    F("corporate_finance", "calculate_wacc", "calculate the weighted average cost of capital",
      "WACC as a fraction.", "equity_value:n:1000:100000:0@with equity {}; debt_value:n:1000:100000:0@debt {}; "
      "cost_of_equity:r:5:15:1@cost of equity {}; cost_of_debt:r:2:9:1@cost of debt {}; tax_rate:r:10:35:0@and tax "
      "rate {}", lambda a: (a["equity_value"] * a["cost_of_equity"] + a["debt_value"] * a["cost_of_debt"] *
                           (1 - a["tax_rate"])) / (a["equity_value"] + a["debt_value"])),
    F("corporate_finance", "calculate_break_even_point", "find the break-even point", "Units needed to break even.",
      "fixed_costs:n:1000:100000:0@with fixed costs of {}; price_per_unit:n:10:200:2@a price of {}; "
      "variable_cost_per_unit:n:1:9:2@and a unit cost of {}", lambda a: a["fixed_costs"] / (a["price_per_unit"] -
                                                                                            a["variable_cost_per_unit"])),
    # accounting
    F("accounting", "calculate_straight_line_depreciation", "calculate the straight-line depreciation",
      "Yearly depreciation of an asset.", "cost:n:1000:100000:0@for an asset costing {}; salvage_value:n:0:900:0@with "
      "salvage value {}; useful_life_years:i:2:30@over {} years",
      lambda a: (a["cost"] - a["salvage_value"]) / a["useful_life_years"]),
    F("accounting", "calculate_gross_margin", "compute the gross margin", "Gross margin in percent.",
      "revenue:n:1000:1000000:0@on revenue of {}; cost_of_goods:n:100:900:0@and cost of goods {}",
      lambda a: (a["revenue"] - a["cost_of_goods"]) / a["revenue"] * 100),
    F("accounting", "calculate_current_ratio", "calculate the current ratio", "Current assets over current liabilities.",
      "current_assets:n:1000:1000000:0@with current assets {}; current_liabilities:n:1000:1000000:0@and liabilities {}",
      lambda a: a["current_assets"] / a["current_liabilities"]),
    F("accounting", "calculate_inventory_turnover", "find the inventory turnover", "Cost of goods over average inventory.",
      "cost_of_goods_sold:n:10000:1000000:0@with COGS of {}; average_inventory:n:1000:200000:0@and average inventory {}",
      lambda a: a["cost_of_goods_sold"] / a["average_inventory"]),
    F("accounting", "calculate_accounts_receivable_days", "compute days sales outstanding", "DSO in days.",
      "accounts_receivable:n:1000:500000:0@with receivables of {}; annual_revenue:n:100000:5000000:0@on revenue of {}",
      lambda a: a["accounts_receivable"] / a["annual_revenue"] * 365),
    # tax
    F("tax", "calculate_income_tax", "estimate the income tax", "Income tax for an income in a country.",
      "income:n:10000:300000:0@on an income of {}; country:s:country@in {}; ?filing_status:e:single|married=single@"
      "filing as {}"),
    F("tax", "calculate_vat", "add VAT to a price", "Price with value-added tax.",
      "net_price:n:1:5000:2@to {}; vat_rate:r:5:27:0@at {}",
      lambda a: a["net_price"] * (1 + a["vat_rate"])),
    F("tax", "calculate_capital_gains_tax", "work out the capital gains tax", "Tax on a gain at a rate.",
      "purchase_price:n:100:50000:0@bought for {}; sale_price:n:100:90000:0@sold for {}; tax_rate:r:10:30:0@taxed "
      "at {}", lambda a: max(0, a["sale_price"] - a["purchase_price"]) * a["tax_rate"]),
    F("tax", "calculate_effective_tax_rate", "compute the effective tax rate", "Tax paid over income, in percent.",
      "tax_paid:n:1000:80000:0@paying {} in tax; income:n:90000:300000:0@on {}",
      lambda a: a["tax_paid"] / a["income"] * 100),
    # real estate
    F("real_estate", "calculate_rental_yield", "calculate the rental yield", "Gross rental yield in percent.",
      "monthly_rent:n:400:8000:0@for a rent of {} a month; property_price:n:50000:2000000:0@on a property of {}",
      lambda a: a["monthly_rent"] * 12 / a["property_price"] * 100),
    F("real_estate", "calculate_price_per_square_meter", "work out the price per square metre",
      "Price divided by floor area.", "price:n:50000:3000000:0@for {}; area_m2:n:20:400:0@for {}",
      lambda a: a["price"] / a["area_m2"]),
    F("real_estate", "estimate_closing_costs", "estimate the closing costs", "Closing costs of a purchase.",
      "purchase_price:n:50000:2000000:0@on a {} home; ?percent:n:2:6:1=3@at {} %",
      lambda a: a["purchase_price"] * a.get("percent", 3) / 100),
    F("real_estate", "calculate_affordability", "work out how much house I can afford",
      "Maximum price from income, debts and rate.", "annual_income:n:20000:400000:0@on an income of {}; "
      "monthly_debts:n:0:3000:0@with {} of monthly debts; interest_rate:r:2:9:2@at {}; "
      "?down_payment:n:0:200000:0@with {} down"),
    # economics
    F("economics", "calculate_inflation_adjusted_value", "adjust an amount for inflation",
      "Value of money after years of inflation.", "amount:n:10:100000:0@of {}; inflation_rate:r:0.5:10:1@at {} "
      "inflation; years:i:1:50@over {} years", lambda a: a["amount"] / (1 + a["inflation_rate"]) ** a["years"]),
    F("economics", "calculate_gdp_growth", "compute the GDP growth rate", "Growth between two GDP values, in percent.",
      "previous_gdp:n:100:30000:0@from {} billion; current_gdp:n:100:30000:0@to {} billion",
      lambda a: (a["current_gdp"] - a["previous_gdp"]) / a["previous_gdp"] * 100),
    F("economics", "calculate_price_elasticity", "calculate the price elasticity of demand",
      "Percent change in quantity over percent change in price.", "quantity_change_percent:n:-50:50:1@with demand "
      "changing {} %; price_change_percent:n:1:40:1@when price changes {} %",
      lambda a: a["quantity_change_percent"] / a["price_change_percent"]),
    F("economics", "calculate_unemployment_rate", "work out the unemployment rate", "Unemployed over labour force, %.",
      "unemployed:i:1000:5000000@with {} unemployed; labor_force:i:6000000:90000000@in a labour force of {}",
      lambda a: a["unemployed"] / a["labor_force"] * 100),
    F("economics", "get_exchange_rate_history", "get historical exchange rates", "Daily rates between two currencies.",
      "base:s:currency@from {}; quote:s:currency@to {}; start_date:date@from {}; end_date:date@to {}"),
    # unit conversion
    F("unit_conversion", "convert_length_units", "convert a length", "Convert a length between units.",
      f"value:n:0.1:1000:1@{{}}; from_unit:e:{_units(_LEN)}@from {{}}; to_unit:e:{_units(_LEN)}@to {{}}", _conv(_LEN)),
    F("unit_conversion", "convert_mass_units", "convert a mass", "Convert a mass between units.",
      f"value:n:0.1:1000:1@{{}}; from_unit:e:{_units(_MASS)}@from {{}}; to_unit:e:{_units(_MASS)}@to {{}}", _conv(_MASS)),
    F("unit_conversion", "convert_volume_units", "convert a volume", "Convert a volume between units.",
      f"value:n:0.1:100:1@{{}}; from_unit:e:{_units(_VOL)}@from {{}}; to_unit:e:{_units(_VOL)}@to {{}}", _conv(_VOL)),
    F("unit_conversion", "convert_area_units", "convert an area", "Convert an area between units.",
      f"value:n:0.1:1000:1@{{}}; from_unit:e:{_units(_AREA)}@from {{}}; to_unit:e:{_units(_AREA)}@to {{}}", _conv(_AREA)),
    F("unit_conversion", "convert_energy_units", "convert an amount of energy", "Convert energy between units.",
      f"value:n:0.1:1000:1@{{}}; from_unit:e:{_units(_ENERGY)}@from {{}}; to_unit:e:{_units(_ENERGY)}@to {{}}",
      _conv(_ENERGY)),
    F("unit_conversion", "convert_pressure_units", "convert a pressure", "Convert a pressure between units.",
      f"value:n:0.1:1000:1@{{}}; from_unit:e:{_units(_PRESSURE)}@from {{}}; to_unit:e:{_units(_PRESSURE)}@to {{}}",
      _conv(_PRESSURE)),
    F("unit_conversion", "convert_speed_units", "convert a speed", "Convert a speed between units.",
      f"value:n:1:300:0@{{}}; from_unit:e:{_units(_SPEED)}@from {{}}; to_unit:e:{_units(_SPEED)}@to {{}}", _conv(_SPEED)),
    F("unit_conversion", "convert_storage_units", "convert a data size", "Convert a data size between units.",
      f"value:n:1:5000:0@{{}}; from_unit:e:{_units(_DATA)}@from {{}}; to_unit:e:{_units(_DATA)}@to {{}}", _conv(_DATA)),
    F("unit_conversion", "convert_temperature_scale", "convert a temperature", "Convert between temperature scales.",
      "value:n:-40:200:1@{}; from_scale:e:celsius|fahrenheit|kelvin@from {}; to_scale:e:celsius|fahrenheit|kelvin@to {}"),
    F("unit_conversion", "convert_fuel_economy", "convert fuel economy", "Between mpg and litres per 100 km.",
      "value:n:3:60:1@{}; from_unit:e:mpg|l_per_100km@from {}; to_unit:e:mpg|l_per_100km@to {}"),
    # dates and times
    F("date_math", "count_days_between_dates", "count the days between two dates", "Days from one date to another.",
      "start_date:date@from {}; end_date:date@to {}", _days),
    F("date_math", "add_days_to_date", "add days to a date", "The date a number of days later.",
      "date:date@to {}; days:i:1:400@add {} days",
      lambda a: (dt.date.fromisoformat(a["date"]) + dt.timedelta(days=a["days"])).isoformat()),
    F("date_math", "get_day_of_week", "find the day of the week for a date", "Weekday name of a date.",
      "date:date@for {}", lambda a: dt.date.fromisoformat(a["date"]).strftime("%A")),
    F("date_math", "calculate_age", "calculate someone's age", "Age in whole years on a date.",
      "birth_date:date@born on {}; ?on_date:date@as of {}"),
    F("date_math", "count_business_days", "count the working days between two dates",
      "Weekdays between two dates, excluding holidays of a country.", "start_date:date@from {}; end_date:date@to {}; "
      "?country:s:country@in {}"),
    F("date_math", "convert_timezone", "convert a time between time zones", "A local time in another time zone.",
      "time:time@{}; from_timezone:s:timezone@from {}; to_timezone:s:timezone@to {}; ?date:date@on {}"),
    F("date_math", "check_leap_year", "check whether a year is a leap year", "Whether a year is a leap year.",
      "year:i:1600:2400@whether {} is a leap year", lambda a: a["year"] % 4 == 0 and (a["year"] % 100 != 0 or a["year"] % 400 == 0)),
    F("date_math", "get_week_number", "get the ISO week number of a date", "ISO week number.", "date:date@of {}",
      lambda a: dt.date.fromisoformat(a["date"]).isocalendar()[1]),
    # text analysis
    F("text_analysis", "count_words", "count the words in a text", "Number of words in a text.", "text:s:text@in {}",
      lambda a: len(a["text"].split())),
    F("text_analysis", "analyze_sentiment", "analyse the sentiment of a text", "Positive, neutral or negative, "
      "with a score.", "text:s:text@of {}; ?language:s:language@in {}"),
    F("text_analysis", "extract_keywords", "extract the keywords from a text", "Most important words of a text.",
      "text:s:text@from {}; ?max_keywords:i:1:10=5@(top {})"),
    F("text_analysis", "calculate_readability_score", "compute the readability score",
      "Flesch reading ease of a text.", "text:s:text@of {}"),
    F("text_analysis", "detect_language", "detect the language of a text", "Language of a text.", "text:s:text@of {}"),
    F("text_analysis", "count_character_frequency", "count how often each letter appears",
      "Letter frequencies of a text.", "text:s:text@in {}; ?case_sensitive:b=false@case-sensitively"),
    F("text_analysis", "summarize_text", "summarise a text", "Short summary of a text.",
      "text:s:text@{}; ?max_sentences:i:1:3=1@in {} sentences"),
    # string utilities
    F("string_utils", "check_palindrome", "check whether a word is a palindrome", "Whether a string reads the same "
      "backwards.", "word:s:word@whether {} is a palindrome", lambda a: a["word"] == a["word"][::-1]),
    F("string_utils", "reverse_string", "reverse a string", "The characters of a string in reverse order.",
      "text:s:text@{}", lambda a: a["text"][::-1]),
    F("string_utils", "check_anagram", "check if two words are anagrams", "Whether two words use the same letters.",
      "word_a:s:word@whether {}; word_b:s:word@and {} are anagrams",
      lambda a: sorted(a["word_a"].lower()) == sorted(a["word_b"].lower())),
    F("string_utils", "convert_to_title_case", "convert text to title case", "Text with each word capitalised.",
      "text:s:text@{}", lambda a: a["text"].title()),
    F("string_utils", "calculate_levenshtein_distance", "compute the edit distance between two words",
      "Levenshtein distance between two strings.", "source:s:word@between {}; target:s:word@and {}"),
    F("string_utils", "count_vowels", "count the vowels in a text", "Number of vowels in a text.", "text:s:text@in {}",
      lambda a: sum(c in "aeiouAEIOU" for c in a["text"])),
    F("string_utils", "slugify_text", "turn a title into a URL slug", "Lowercase, hyphen-separated slug.",
      "text:s:text@{}; ?max_length:i:10:60@at most {} characters"),
    F("string_utils", "find_regex_matches", "find the matches of a regular expression", "All matches of a pattern.",
      "pattern:s:pattern@of {}; text:s:text@in {}"),
    # encoding and hashing
    F("encoding", "encode_base64", "encode text as base64", "Base64 encoding of UTF-8 text.", "text:s:text@{}",
      lambda a: base64.b64encode(a["text"].encode()).decode()),
    F("encoding", "compute_hash", "compute the hash of a text", "Hex digest of a text.",
      "text:s:text@of {}; algorithm:e:md5|sha1|sha256|sha512@with {}"),
    F("encoding", "convert_binary_to_decimal", "convert a binary number to decimal", "Decimal value of binary digits.",
      "binary:s:binary@{}", lambda a: int(a["binary"], 2)),
    F("encoding", "convert_decimal_to_base", "convert a number to another base", "An integer written in a base.",
      "number:i:1:100000@{}; base:i:2:16@to base {}"),
    F("encoding", "url_encode", "URL-encode a string", "Percent-encoding of a string.", "text:s:text@{}"),
    F("encoding", "convert_to_roman_numeral", "convert a number to Roman numerals", "Roman numeral of an integer.",
      "number:i:1:3999@{}"),
    F("encoding", "encode_morse_code", "translate text into Morse code", "Morse code of a text.", "text:s:word@{}"),
    # lists and data
    F("data_lists", "sort_numbers", "sort a list of numbers", "Numbers in ascending or descending order.",
      "numbers:ln:-100:100:1@{}; ?descending:b=false@in descending order",
      lambda a: sorted(a["numbers"], reverse=a.get("descending", False))),
    F("data_lists", "find_maximum", "find the largest number", "Largest value of a list.", "numbers:ln:-100:100:1@in {}",
      lambda a: max(a["numbers"])),
    F("data_lists", "remove_duplicates", "remove the duplicates from a list", "Distinct items, first order kept.",
      "items:li:1:9@from {}", lambda a: list(dict.fromkeys(a["items"]))),
    F("data_lists", "sum_numbers", "add up a list of numbers", "Sum of a list.", "numbers:ln:-100:100:1@{}",
      lambda a: sum(a["numbers"])),
    F("data_lists", "merge_sorted_lists", "merge two sorted lists", "One sorted list from two.",
      "list_a:li:0:50:sorted@{}; list_b:li:0:50:sorted@and {}", lambda a: sorted(a["list_a"] + a["list_b"])),
    F("data_lists", "chunk_list", "split a list into chunks", "Consecutive chunks of a given size.",
      "items:li:1:99@{}; size:i:2:4@into chunks of {}",
      lambda a: [a["items"][i:i + a["size"]] for i in range(0, len(a["items"]), a["size"])]),
    F("data_lists", "filter_numbers_above", "keep the numbers above a threshold", "Values greater than a threshold.",
      "numbers:ln:0:100:0@from {}; threshold:n:10:90:0@above {}",
      lambda a: [x for x in a["numbers"] if x > a["threshold"]]),
    F("data_lists", "calculate_cart_total", "total up a shopping cart", "Sum of price times quantity of line items.",
      "items:items@for {}; ?discount_percent:n:5:30:0=0@with {} off",
      lambda a: sum(i["price"] * i["quantity"] for i in a["items"]) * (1 - a.get("discount_percent", 0) / 100)),
    F("data_lists", "validate_json", "check whether a string is valid JSON", "Whether text parses as JSON.",
      "text:s:json@whether {} is valid JSON"),
    # networking
    F("networking", "calculate_subnet", "calculate the subnet details", "Network, broadcast and host range of a CIDR.",
      "cidr:s:cidr@for {}"),
    F("networking", "check_ip_in_subnet", "check whether an IP address is in a subnet", "Whether an IP is in a CIDR.",
      "ip_address:s:ip@whether {}; cidr:s:cidr@is in {}"),
    F("networking", "calculate_download_time", "estimate the download time", "Seconds to download a file.",
      "file_size_mb:n:1:20000:0@for a {} file; bandwidth_mbps:n:1:1000:0@at {}",
      lambda a: a["file_size_mb"] * 8 / a["bandwidth_mbps"]),
    F("networking", "lookup_dns_record", "look up a DNS record", "DNS records of a domain.",
      "domain:e:example.com|acme.io|northwind.dev|python.org@for {}; ?record_type:e:A|AAAA|MX|TXT|CNAME=A@({})"),
    F("networking", "ping_host", "ping a host", "Round-trip time to a host.", "host:s:ip@{}; ?count:i:1:10=4@{} times"),
    F("networking", "validate_email_address", "check if an email address is valid", "Syntax and MX check of an email.",
      "email:s:email@{}"),
    F("networking", "parse_url", "parse a URL into its parts", "Scheme, host, path, query and fragment of a URL.",
      "url:s:url@{}"),
    # computing
    F("computing", "compare_versions", "compare two version numbers", "Which of two semantic versions is newer.",
      "version_a:s:semver@{}; version_b:s:semver@and {}"),
    F("computing", "calculate_storage_cost", "estimate cloud storage cost", "Monthly cost of stored data.",
      "size_gb:n:1:50000:0@for {}; price_per_gb:n:0.01:0.1:3@at {} per GB",
      lambda a: a["size_gb"] * a["price_per_gb"]),
    F("computing", "estimate_big_o_runtime", "estimate the run time of an algorithm",
      "Run time for an input size from a complexity class and a rate.", "complexity:e:n|n_log_n|n^2|2^n@with complexity "
      "{}; input_size:i:10:1000000@for n = {}; ?operations_per_second:n:1000000:1000000000:0=100000000@at {} operations "
      "per second"),
    F("computing", "generate_uuid", "generate a UUID", "Random UUIDs.", "count:i:1:10@{}; ?version:e:4|7=4@version {}"),
    F("computing", "calculate_aspect_ratio", "find the aspect ratio", "Reduced aspect ratio of a width and height.",
      "width_px:i:320:7680@for {}; height_px:i:240:4320@by {}"),
    F("computing", "generate_password", "generate a password", "A random password.",
      "length:i:8:40@{} characters long; ?include_symbols:b=true@with symbols; ?include_digits:b=true@with digits"),
    F("computing", "run_sql_query", "run a SQL query", "Rows returned by a read-only SQL query.",
      "table:s:sql_table@on the {} table; ?limit:i:1:100=10@(at most {} rows); ?where:s:text@where {}"),
    F("computing", "format_json", "pretty-print JSON", "JSON re-indented.", "json_text:s:json@{}; ?indent:i:2:4=2@with "
      "indent {}"),
)


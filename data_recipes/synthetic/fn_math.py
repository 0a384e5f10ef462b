"""Function table, mathematics: arithmetic, number theory, algebra, calculus, geometry, probability, statistics.

One `F(domain, name, ask, doc, params, compute)` row per base function; library.py explains the parameter spec
and makes the naming styles. `compute` gives the exact result where a formula is short, so rows with a tool
result never state a wrong number.

Run: `python -c "from data_recipes.synthetic.fn_math import FUNCTIONS; print(len(FUNCTIONS))"`.
Left out: symbolic algebra (results a user can't check by hand).
"""

from __future__ import annotations

import math
import statistics as st

from data_recipes.synthetic.library import F


def _prime(n: int) -> bool:
    return n > 1 and all(n % k for k in range(2, int(n ** 0.5) + 1))


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _det(m):
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** j * m[0][j] * _det([r[:j] + r[j + 1:] for r in m[1:]]) for j in range(len(m)))


FUNCTIONS = (
    # arithmetic
    F("arithmetic", "calculate_power", "raise a number to a power", "Raise a base number to an exponent.",
      "number:n:-20:20:1; exponent:i:0:8", lambda a: a["number"] ** a["exponent"]),
    F("arithmetic", "calculate_nth_root", "take the nth root", "Compute the nth root of a number.",
      "number:n:1:10000:1@of {}; root:i:2:5@with n = {}", lambda a: a["number"] ** (1 / a["root"])),
    F("arithmetic", "round_number", "round a number", "Round a number to a given count of decimal places.",
      "value:n:-1000:1000:5; ?decimals:i:0:4=0@to {} decimal places", lambda a: round(a["value"], a.get("decimals", 0))),
    F("arithmetic", "calculate_percentage_change", "work out the percentage change",
      "Percentage change from an old value to a new value.", "old_value:n:1:5000:1@from {}; new_value:n:1:5000:1@to {}",
      lambda a: (a["new_value"] - a["old_value"]) / a["old_value"] * 100),
    F("arithmetic", "calculate_percent_of", "find a percentage of a number", "Compute p percent of a number.",
      "percent:n:1:100:1@{} percent; number:n:1:10000:1@of {}", lambda a: a["percent"] / 100 * a["number"]),
    F("arithmetic", "calculate_absolute_difference", "find the absolute difference between two numbers",
      "Absolute difference |a - b| of two numbers.", "a:n:-500:500:1@between {}; b:n:-500:500:1@and {}",
      lambda a: abs(a["a"] - a["b"])),
    F("arithmetic", "calculate_log", "compute the logarithm of a number", "Logarithm of a positive number in a base.",
      "number:n:1:100000:2@of {}; ?base:n:2:10:0=10@in base {}", lambda a: math.log(a["number"], a.get("base", 10))),
    F("arithmetic", "simplify_fraction", "simplify a fraction", "Reduce a fraction to lowest terms.",
      "numerator:i:1:500; denominator:i:2:500"),
    F("arithmetic", "add_fractions", "add two fractions", "Add two fractions given as numerator and denominator.",
      "num1:i:1:20@{}; den1:i:2:20@/{}; num2:i:1:20@plus {}; den2:i:2:20@/{}"),
    # number theory
    F("number_theory", "check_prime_number", "check whether a number is prime", "Whether an integer is prime.",
      "n:i:2:100000@whether {} is prime", lambda a: _prime(a["n"])),
    F("number_theory", "find_prime_factors", "find the prime factors of a number", "Prime factorisation of an integer.",
      "n:i:2:100000@of {}"),
    F("number_theory", "compute_gcd", "find the greatest common divisor", "Greatest common divisor of two integers.",
      "a:i:1:10000@of {}; b:i:1:10000@and {}", lambda a: math.gcd(a["a"], a["b"])),
    F("number_theory", "compute_lcm", "find the least common multiple", "Least common multiple of two integers.",
      "a:i:1:500@of {}; b:i:1:500@and {}", lambda a: a["a"] * a["b"] // math.gcd(a["a"], a["b"])),
    F("number_theory", "list_primes_below", "list the prime numbers below a limit", "All primes smaller than a limit.",
      "limit:i:10:500@below {}", lambda a: [k for k in range(a["limit"]) if _prime(k)]),
    F("number_theory", "compute_modular_inverse", "find the modular inverse",
      "Modular multiplicative inverse of a modulo m.", "a:i:2:200@of {}; modulus:i:3:997@modulo {}"),
    F("number_theory", "check_perfect_number", "check if a number is perfect",
      "Whether n equals the sum of its proper divisors.", "n:i:2:10000@whether {} is a perfect number",
      lambda a: sum(d for d in range(1, a["n"]) if a["n"] % d == 0) == a["n"]),
    F("number_theory", "sum_of_digits", "add up the digits of a number", "Sum of the decimal digits of an integer.",
      "number:i:10:99999999@of {}", lambda a: sum(int(c) for c in str(a["number"]))),
    F("number_theory", "compute_modular_exponent", "compute a modular power", "base^exponent mod modulus.",
      "base:i:2:100; exponent:i:2:500; modulus:i:2:1000@mod {}", lambda a: pow(a["base"], a["exponent"], a["modulus"])),
    # combinatorics
    F("combinatorics", "calculate_factorial", "calculate the factorial of a number", "n! for a non-negative integer.",
      "n:i:0:20@of {}", lambda a: math.factorial(a["n"])),
    F("combinatorics", "count_combinations", "count the combinations",
      "Number of ways to choose k items from n without order.", "n:i:2:60@of {} items; k:i:1:10@choosing {}",
      lambda a: math.comb(a["n"], a["k"])),
    F("combinatorics", "count_permutations", "count the permutations",
      "Number of ordered arrangements of k items out of n.", "n:i:2:30@of {} items; k:i:1:8@taken {} at a time",
      lambda a: math.perm(a["n"], a["k"])),
    F("combinatorics", "count_derangements", "count the derangements",
      "Permutations of n items with no item in its place.", "n:i:1:12@of {} items"),
    F("combinatorics", "calculate_binomial_coefficient", "compute the binomial coefficient",
      "The binomial coefficient C(n, k).", "n:i:1:50@n = {}; k:i:0:10@k = {}", lambda a: math.comb(a["n"], a["k"])),
    F("combinatorics", "count_multiset_combinations", "count combinations with repetition",
      "Ways to choose k items from n kinds when kinds may repeat.", "kinds:i:2:20@from {} kinds; k:i:1:10@choosing {}",
      lambda a: math.comb(a["kinds"] + a["k"] - 1, a["k"])),
    # sequences
    F("sequences", "get_fibonacci_number", "get the nth Fibonacci number", "The nth Fibonacci number (F0 = 0).",
      "n:i:1:80@for n = {}", lambda a: _fib(a["n"])),
    F("sequences", "generate_fibonacci_sequence", "generate the Fibonacci sequence",
      "The first n Fibonacci numbers.", "count:i:3:30@with {} terms", lambda a: [_fib(i) for i in range(a["count"])]),
    F("sequences", "calculate_arithmetic_series_sum", "sum an arithmetic series",
      "Sum of an arithmetic series from its first term, difference and length.",
      "first_term:n:-50:50:1; difference:n:-10:10:1@with common difference {}; terms:i:2:200@over {} terms",
      lambda a: a["terms"] / 2 * (2 * a["first_term"] + (a["terms"] - 1) * a["difference"])),
    F("sequences", "calculate_geometric_series_sum", "sum a geometric series",
      "Sum of the first n terms of a geometric series.", "first_term:n:1:100:1; ratio:n:0.1:3:2@with ratio {}; "
      "terms:i:2:30@for {} terms", lambda a: a["first_term"] * (a["terms"] if a["ratio"] == 1 else
                                                                   (1 - a["ratio"] ** a["terms"]) / (1 - a["ratio"]))),
    F("sequences", "get_nth_triangular_number", "find the nth triangular number", "The nth triangular number.",
      "n:i:1:1000@for n = {}", lambda a: a["n"] * (a["n"] + 1) // 2),
    F("sequences", "get_collatz_steps", "count the Collatz steps", "Steps for n to reach 1 under the Collatz map.",
      "n:i:2:10000@for {}"),
    # algebra
    F("algebra", "solve_quadratic_equation", "solve the quadratic equation",
      "Real roots of a*x^2 + b*x + c = 0.", "a:i:1:9@a = {}; b:i:-20:20@b = {}; c:i:-30:30@c = {}"),
    F("algebra", "solve_linear_equation", "solve the linear equation", "Solve a*x + b = c for x.",
      "a:n:1:20:0@a = {}; b:n:-50:50:0@b = {}; c:n:-50:50:0@c = {}", lambda a: (a["c"] - a["b"]) / a["a"]),
    F("algebra", "evaluate_polynomial", "evaluate a polynomial", "Value of a polynomial at x from its coefficients, "
      "highest power first.", "coefficients:li:-9:9@with coefficients {}; x:n:-5:5:1@at x = {}",
      lambda a: sum(c * a["x"] ** (len(a["coefficients"]) - 1 - i) for i, c in enumerate(a["coefficients"]))),
    F("algebra", "solve_linear_system_2x2", "solve a system of two linear equations",
      "Solve a1*x + b1*y = c1 and a2*x + b2*y = c2.",
      "a1:i:-9:9; b1:i:-9:9; c1:i:-20:20; a2:i:-9:9; b2:i:-9:9; c2:i:-20:20"),
    F("algebra", "calculate_discriminant", "compute the discriminant of a quadratic",
      "The discriminant b^2 - 4ac of a quadratic.", "a:i:1:9@a = {}; b:i:-20:20@b = {}; c:i:-30:30@c = {}",
      lambda a: a["b"] ** 2 - 4 * a["a"] * a["c"]),
    F("algebra", "find_vertex_of_parabola", "find the vertex of the parabola",
      "Vertex (x, y) of y = a*x^2 + b*x + c.", "a:i:1:9@a = {}; b:i:-20:20@b = {}; c:i:-30:30@c = {}"),
    F("algebra", "expand_binomial", "expand a binomial power", "Coefficients of (x + y)^n.",
      "n:i:1:10@to the power {}", lambda a: [math.comb(a["n"], k) for k in range(a["n"] + 1)]),
    # calculus
    F("calculus", "compute_derivative_at_point", "evaluate the derivative of a function at a point",
      "Numerical derivative of a single-variable expression in x at a point.",
      "expression:s:expr@of {}; x:n:-5:5:1@at x = {}"),
    F("calculus", "compute_definite_integral", "compute the definite integral",
      "Numerical integral of an expression in x between two bounds.",
      "expression:s:expr@of {}; lower:n:-5:0:0@from {}; upper:n:1:10:0@to {}; ?method:e:simpson|trapezoid=simpson"),
    F("calculus", "find_limit", "find the limit of an expression", "Limit of an expression in x as x approaches a value.",
      "expression:s:expr@of {}; approaches:n:-3:3:0@as x approaches {}"),
    F("calculus", "compute_taylor_coefficients", "get the Taylor series coefficients",
      "Taylor coefficients of a function around a point.",
      "function:e:sin|cos|exp|log1p@of {}; center:n:0:2:0@around {}; order:i:2:8@up to order {}"),
    F("calculus", "find_critical_points", "find the critical points of a polynomial",
      "Critical points of a polynomial given its coefficients, highest power first.",
      "coefficients:li:-9:9@with coefficients {}"),
    F("calculus", "compute_area_between_curves", "compute the area between two curves",
      "Area between two expressions in x over an interval.",
      "upper_curve:s:expr@between {}; lower_curve:s:expr@and {}; start:n:-3:0:0@from x = {}; end:n:1:5:0@to x = {}"),
    # linear algebra
    F("linear_algebra", "compute_determinant", "compute the determinant of a matrix", "Determinant of a square matrix.",
      "matrix:matrix@of {}", lambda a: _det(a["matrix"])),
    F("linear_algebra", "transpose_matrix", "transpose a matrix", "Transpose of a matrix.", "matrix:matrix@{}",
      lambda a: [list(r) for r in zip(*a["matrix"])]),
    F("linear_algebra", "compute_dot_product", "compute the dot product of two vectors",
      "Dot product of two vectors of equal length.", "vector_a:vector@of {}; vector_b:vector@and {}",
      lambda a: sum(x * y for x, y in zip(a["vector_a"], a["vector_b"]))),
    F("linear_algebra", "compute_cross_product", "compute the cross product", "Cross product of two 3-vectors.",
      "vector_a:vector@of {}; vector_b:vector@and {}"),
    F("linear_algebra", "compute_vector_norm", "find the length of a vector", "Euclidean norm of a vector.",
      "vector:vector@of {}", lambda a: math.sqrt(sum(x * x for x in a["vector"]))),
    F("linear_algebra", "invert_matrix", "invert a matrix", "Inverse of a square matrix.", "matrix:matrix@{}"),
    F("linear_algebra", "compute_matrix_trace", "compute the trace of a matrix", "Sum of a square matrix's diagonal.",
      "matrix:matrix@of {}", lambda a: sum(a["matrix"][i][i] for i in range(len(a["matrix"])))),
    F("linear_algebra", "compute_eigenvalues", "find the eigenvalues of a matrix", "Eigenvalues of a square matrix.",
      "matrix:matrix@of {}"),
    # trigonometry
    F("trigonometry", "compute_sine", "compute the sine of an angle", "Sine of an angle.",
      "angle:n:0:360:0@of {}; ?unit:e:degrees|radians=degrees@in {}"),
    F("trigonometry", "convert_degrees_to_radians", "convert an angle from degrees to radians",
      "An angle in degrees expressed in radians.", "degrees:n:0:360:1@{} degrees", lambda a: math.radians(a["degrees"])),
    F("trigonometry", "convert_radians_to_degrees", "convert radians to degrees", "An angle in radians in degrees.",
      "radians:n:0:6.28:2@{} radians", lambda a: math.degrees(a["radians"])),
    F("trigonometry", "solve_right_triangle", "solve a right triangle",
      "Missing sides and angles of a right triangle from one side and one acute angle.",
      "side:n:1:50:1@with a side of {}; angle_deg:n:5:85:0@and an angle of {}"),
    F("trigonometry", "apply_law_of_cosines", "find the third side with the law of cosines",
      "Third side of a triangle from two sides and the included angle.",
      "side_a:n:1:40:1@with sides {}; side_b:n:1:40:1@and {}; angle_deg:n:10:170:0@and an included angle of {}",
      lambda a: math.sqrt(a["side_a"] ** 2 + a["side_b"] ** 2 - 2 * a["side_a"] * a["side_b"] *
                          math.cos(math.radians(a["angle_deg"])))),
    F("trigonometry", "compute_arctangent", "compute the arctangent", "Angle whose tangent is y/x, in degrees.",
      "y:n:-10:10:1@y = {}; x:n:0.5:10:1@x = {}", lambda a: math.degrees(math.atan2(a["y"], a["x"]))),
    # 2D geometry
    F("geometry_2d", "calculate_circle_circumference", "calculate the circumference of a circle",
      "Circumference of a circle from its radius.", "radius:n:0.5:100:1@with radius {}; ?unit:u:length:radius=cm",
      lambda a: 2 * math.pi * a["radius"]),
    F("geometry_2d", "calculate_rectangle_area", "calculate the area of a rectangle", "Area of a rectangle.",
      "length:n:1:200:1@{} long; width:n:1:200:1@and {} wide; ?unit:u:length:length,width=m",
      lambda a: a["length"] * a["width"]),
    F("geometry_2d", "calculate_rectangle_perimeter", "find the perimeter of a rectangle", "Perimeter of a rectangle.",
      "length:n:1:200:1@{} long; width:n:1:200:1@and {} wide; ?unit:u:length:length,width=m",
      lambda a: 2 * (a["length"] + a["width"])),
    F("geometry_2d", "calculate_trapezoid_area", "calculate the area of a trapezoid",
      "Area of a trapezoid from its two parallel sides and height.",
      "base_a:n:1:50:1@with bases {}; base_b:n:1:50:1@and {}; height:n:1:30:1@and height {}; "
      "?unit:u:length:base_a,base_b,height=units",
      lambda a: (a["base_a"] + a["base_b"]) / 2 * a["height"]),
    F("geometry_2d", "calculate_ellipse_area", "find the area of an ellipse", "Area of an ellipse from its semi-axes.",
      "semi_major:n:1:50:1@with semi-axes {}; semi_minor:n:1:50:1@and {}; ?unit:u:length:semi_major,semi_minor=units",
      lambda a: math.pi * a["semi_major"] * a["semi_minor"]),
    F("geometry_2d", "calculate_regular_polygon_area", "compute the area of a regular polygon",
      "Area of a regular polygon from its number of sides and side length.",
      "sides:i:3:12@with {} sides; side_length:n:1:30:1@each {} long; ?unit:u:length:side_length=cm",
      lambda a: a["sides"] * a["side_length"] ** 2 / (4 * math.tan(math.pi / a["sides"]))),
    F("geometry_2d", "calculate_heron_area", "find the area of a triangle with Heron's formula",
      "Area of a triangle from its three side lengths (Heron's formula).",
      "side_a:i:5:12@with sides {}; side_b:i:5:12@, {}; side_c:i:5:12@and {}; "
      "?unit:u:length:side_a,side_b,side_c=units"),
    F("geometry_2d", "calculate_sector_area", "calculate the area of a circular sector",
      "Area of a circle sector from radius and central angle.",
      "radius:n:1:50:1@with radius {}; angle_deg:n:10:350:0@and angle {}; ?unit:u:length:radius=cm",
      lambda a: math.pi * a["radius"] ** 2 * a["angle_deg"] / 360),
    F("geometry_2d", "calculate_parallelogram_area", "calculate the area of a parallelogram",
      "Area of a parallelogram from base and height.", "base:n:1:60:1@with base {}; height:n:1:40:1@and height {}; ?unit:u:length:base,height=units",
      lambda a: a["base"] * a["height"]),
    F("geometry_2d", "calculate_rhombus_area", "find the area of a rhombus", "Area of a rhombus from its diagonals.",
      "diagonal_a:n:1:40:1@with diagonals {}; diagonal_b:n:1:40:1@and {}; "
      "?unit:u:length:diagonal_a,diagonal_b=cm",
      lambda a: a["diagonal_a"] * a["diagonal_b"] / 2),
    F("geometry_2d", "calculate_polygon_interior_angle", "find the interior angle of a regular polygon",
      "Each interior angle of a regular polygon, in degrees.", "sides:i:3:20@with {} sides",
      lambda a: (a["sides"] - 2) * 180 / a["sides"]),
    F("geometry_2d", "calculate_square_diagonal", "find the diagonal of a square", "Diagonal of a square from its side.",
      "side:n:1:100:1@with side {}; ?unit:u:length:side=cm", lambda a: a["side"] * math.sqrt(2)),
    # 3D geometry
    F("geometry_3d", "calculate_cylinder_volume", "calculate the volume of a cylinder", "Volume of a cylinder.",
      "radius:n:0.5:30:1@with radius {}; height:n:1:60:1@and height {}; ?unit:u:length:radius,height=cm",
      lambda a: math.pi * a["radius"] ** 2 * a["height"]),
    F("geometry_3d", "calculate_cone_volume", "find the volume of a cone", "Volume of a right circular cone.",
      "radius:n:0.5:30:1@with radius {}; height:n:1:60:1@and height {}; ?unit:u:length:radius,height=cm",
      lambda a: math.pi * a["radius"] ** 2 * a["height"] / 3),
    F("geometry_3d", "calculate_cube_surface_area", "calculate the surface area of a cube", "Surface area of a cube.",
      "edge:n:0.5:50:1@with edge {}; ?unit:u:length:edge=cm", lambda a: 6 * a["edge"] ** 2),
    F("geometry_3d", "calculate_sphere_surface_area", "find the surface area of a sphere", "Surface area of a sphere.",
      "radius:n:0.5:50:1@with radius {}; ?unit:u:length:radius=m", lambda a: 4 * math.pi * a["radius"] ** 2),
    F("geometry_3d", "calculate_box_volume", "compute the volume of a box", "Volume of a rectangular box.",
      "dimensions:dims@measuring {}", lambda a: a["dimensions"]["length"] * a["dimensions"]["width"] *
      a["dimensions"]["height"]),
    F("geometry_3d", "calculate_pyramid_volume", "calculate the volume of a square pyramid",
      "Volume of a pyramid with a square base.", "base_side:n:1:40:1@with base side {}; height:n:1:40:1@and height {}; ?unit:u:length:base_side,height=m",
      lambda a: a["base_side"] ** 2 * a["height"] / 3),
    F("geometry_3d", "calculate_cylinder_surface_area", "find the surface area of a cylinder",
      "Total surface area of a closed cylinder.",
      "radius:n:0.5:30:1@with radius {}; height:n:1:60:1@and height {}; ?unit:u:length:radius,height=cm",
      lambda a: 2 * math.pi * a["radius"] * (a["radius"] + a["height"])),
    F("geometry_3d", "calculate_torus_volume", "calculate the volume of a torus",
      "Volume of a torus from its major and minor radii.", "major_radius:n:2:40:1@with major radius {}; "
      "minor_radius:n:0.5:5:1@and minor radius {}; ?unit:u:length:major_radius,minor_radius=cm", lambda a: 2 * math.pi ** 2 * a["major_radius"] *
      a["minor_radius"] ** 2),
    # coordinate geometry
    F("coordinate_geometry", "calculate_distance_between_points", "find the distance between two points",
      "Euclidean distance between two points in the plane.", "point_a:point@between {}; point_b:point@and {}",
      lambda a: math.dist((a["point_a"]["x"], a["point_a"]["y"]), (a["point_b"]["x"], a["point_b"]["y"]))),
    F("coordinate_geometry", "find_midpoint", "find the midpoint of a segment", "Midpoint of two points.",
      "point_a:point@between {}; point_b:point@and {}"),
    F("coordinate_geometry", "calculate_slope", "calculate the slope of a line through two points",
      "Slope of the line through two points.", "point_a:point@through {}; point_b:point@and {}"),
    F("coordinate_geometry", "calculate_polygon_area_from_vertices", "compute the area of a polygon",
      "Area of a simple polygon from its vertices in order (shoelace formula).", "vertices:points@with vertices {}"),
    F("coordinate_geometry", "compute_centroid", "find the centroid of a set of points",
      "Centroid (mean point) of a set of points.", "points:points@of {}"),
    F("coordinate_geometry", "check_point_in_circle", "check whether a point lies inside a circle",
      "Whether a point is inside a circle given by its center and radius.",
      "point:point@whether {}; center:point@is inside the circle centered at {}; radius:n:1:20:0@with radius {}"),
    # probability
    F("probability", "calculate_binomial_probability", "calculate the binomial probability",
      "Probability of exactly k successes in n independent trials.",
      "trials:i:2:40@in {} trials; successes:i:0:10@of exactly {} successes; probability:n:0.05:0.95:2@with p = {}",
      lambda a: math.comb(a["trials"], a["successes"]) * a["probability"] ** a["successes"] *
      (1 - a["probability"]) ** (a["trials"] - a["successes"])),
    F("probability", "calculate_normal_cdf", "compute the normal cumulative probability",
      "P(X <= x) for a normal distribution.", "x:n:-50:150:1@at x = {}; mean:n:0:100:1@with mean {}; "
      "std_dev:n:1:20:1@and standard deviation {}", lambda a: 0.5 * (1 + math.erf((a["x"] - a["mean"]) /
                                                                                 (a["std_dev"] * math.sqrt(2))))),
    F("probability", "calculate_poisson_probability", "find the Poisson probability",
      "Probability of k events when events occur at an average rate.",
      "rate:n:0.5:15:1@with an average rate of {}; k:i:0:12@of seeing exactly {} events",
      lambda a: a["rate"] ** a["k"] * math.exp(-a["rate"]) / math.factorial(a["k"])),
    F("probability", "calculate_dice_probability", "work out the probability of a dice total",
      "Probability that several fair dice add up to a target.",
      "dice:i:1:4@rolling {} dice; target:i:2:24@of a total of {}; ?sides:i:4:20=6@with {} sides each"),
    F("probability", "calculate_expected_value", "compute the expected value",
      "Expected value of outcomes with their probabilities.",
      "outcomes:ln:-100:100:0@of outcomes {}; probabilities:lp@with probabilities {}"),
    F("probability", "calculate_conditional_probability", "apply Bayes' theorem",
      "P(A|B) from P(B|A), P(A) and P(B).", "p_b_given_a:n:0.1:0.99:2@with P(B|A) = {}; p_a:n:0.01:0.5:2@P(A) = {}; "
      "p_b:n:0.05:0.9:2@and P(B) = {}", lambda a: a["p_b_given_a"] * a["p_a"] / a["p_b"]),
    F("probability", "calculate_geometric_probability", "compute the chance of the first success on trial k",
      "Probability the first success comes on trial k.", "probability:n:0.05:0.9:2@with success probability {}; "
      "trial:i:1:10@on trial {}", lambda a: (1 - a["probability"]) ** (a["trial"] - 1) * a["probability"]),
    # statistics
    F("statistics", "calculate_average", "find the average", "Arithmetic mean of a list of numbers.",
      "numbers:ln:0:100:1@of {}", lambda a: st.mean(a["numbers"])),
    F("statistics", "calculate_median_value", "find the median", "Median of a list of numbers.",
      "numbers:ln:0:100:1@of {}", lambda a: st.median(a["numbers"])),
    F("statistics", "calculate_mode", "find the mode", "Most frequent value in a list.", "values:li:1:6@of {}",
      lambda a: st.mode(a["values"])),
    F("statistics", "calculate_variance", "compute the variance", "Variance of a list of numbers.",
      "numbers:ln:0:100:1@of {}; ?sample:b=true@using the sample formula",
      lambda a: st.variance(a["numbers"]) if a.get("sample", True) else st.pvariance(a["numbers"])),
    F("statistics", "calculate_std_deviation", "compute the standard deviation", "Standard deviation of numbers.",
      "numbers:ln:0:100:1@of {}; ?population:b=false@as a population",
      lambda a: st.pstdev(a["numbers"]) if a.get("population") else st.stdev(a["numbers"])),
    F("statistics", "calculate_z_score", "compute the z-score", "Standard score of a value.",
      "value:n:0:200:1@of {}; mean:n:0:150:1@with mean {}; std_dev:n:1:30:1@and standard deviation {}",
      lambda a: (a["value"] - a["mean"]) / a["std_dev"]),
    F("statistics", "calculate_correlation", "compute the correlation between two lists",
      "Pearson correlation of two equally long lists.", "x_values:ln:0:50:0@between {}; y_values:ln:0:50:0@and {}"),
    F("statistics", "calculate_percentile", "find a percentile", "The pth percentile of a list of numbers.",
      "numbers:ln:0:100:0@of {}; percentile:i:5:99@the {}th percentile"),
    F("statistics", "calculate_confidence_interval", "compute a confidence interval for a mean",
      "Confidence interval for a mean from sample statistics.", "mean:n:10:100:1@with sample mean {}; "
      "std_dev:n:1:20:1@standard deviation {}; sample_size:i:10:500@and {} samples; ?confidence:e:0.9|0.95|0.99=0.95"),
    F("statistics", "calculate_range", "find the range of a data set", "Largest minus smallest value.",
      "numbers:ln:0:100:1@of {}", lambda a: max(a["numbers"]) - min(a["numbers"])),
    F("statistics", "fit_linear_regression", "fit a straight line to data", "Least-squares slope and intercept.",
      "x_values:ln:0:20:0@with x {}; y_values:ln:0:50:1@and y {}"),
    F("statistics", "run_t_test", "run a two-sample t-test", "Two-sample t-test on two groups.",
      "group_a:ln:0:50:1@comparing {}; group_b:ln:0:50:1@with {}; ?equal_variance:b=false@assuming equal variance"),
    F("statistics", "calculate_weighted_average", "compute a weighted average", "Weighted mean of values.",
      "values:ln:0:100:0@of {}; weights:ln:0.1:5:1@with weights {}"),
    F("statistics", "calculate_moving_average", "compute a moving average", "Simple moving average of a series.",
      "values:ln:0:100:0@of {}; window:i:2:4@with a window of {}"),
)

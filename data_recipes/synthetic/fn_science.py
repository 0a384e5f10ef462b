"""Function table, science and health: physics, chemistry, biology, earth and space, medicine, environment.

One `F(domain, name, ask, doc, params, compute)` row per base function (see library.py for the parameter spec).

Run: `python -c "from data_recipes.synthetic.fn_science import FUNCTIONS; print(len(FUNCTIONS))"`.
Left out: results that need data a formula can't give (a compound's real properties, a star's catalogue entry):
those functions have no `compute`, so their rows carry the call but no tool result.
"""

from __future__ import annotations

import math

from data_recipes.synthetic.library import F

G = 9.81

FUNCTIONS = (
    # kinematics
    F("kinematics", "calculate_final_velocity", "calculate the final velocity",
      "Final velocity under constant acceleration.", "initial_velocity_mps:n:0:40:1@starting at {}; "
      "acceleration:n:0.5:12:1@accelerating at {} m/s²; time_s:n:1:60:1@for {}",
      lambda a: a["initial_velocity_mps"] + a["acceleration"] * a["time_s"]),
    F("kinematics", "calculate_displacement", "find the displacement of an object",
      "Displacement under constant acceleration.", "initial_velocity_mps:n:0:30:1@with initial velocity {}; "
      "acceleration:n:0.5:10:1@acceleration {} m/s²; time_s:n:1:30:1@over {}",
      lambda a: a["initial_velocity_mps"] * a["time_s"] + 0.5 * a["acceleration"] * a["time_s"] ** 2),
    F("kinematics", "calculate_average_speed", "work out the average speed", "Average speed from distance and time.",
      "distance_km:n:1:900:1@covering {}; time_hours:n:0.2:12:1@in {}", lambda a: a["distance_km"] / a["time_hours"]),
    F("kinematics", "calculate_free_fall_time", "compute how long a free fall takes",
      "Time for an object to fall a height from rest, without air resistance.", "height_m:n:1:500:1@from {}",
      lambda a: math.sqrt(2 * a["height_m"] / G)),
    F("kinematics", "calculate_projectile_max_height", "calculate the maximum height of a projectile",
      "Peak height of a projectile from launch speed and angle.", "speed_mps:n:5:80:1@launched at {}; "
      "angle_deg:n:10:85:0@at an angle of {}", lambda a: (a["speed_mps"] * math.sin(math.radians(a["angle_deg"]))) ** 2
      / (2 * G)),
    F("kinematics", "calculate_centripetal_acceleration", "find the centripetal acceleration",
      "Centripetal acceleration of circular motion.", "speed_mps:n:1:60:1@at {}; radius_m:n:1:200:1@on a radius of {}",
      lambda a: a["speed_mps"] ** 2 / a["radius_m"]),
    # dynamics
    F("dynamics", "calculate_net_force", "calculate the force", "Force from mass and acceleration (F = m a).",
      "mass_kg:n:0.1:2000:1@on a mass of {}; acceleration:n:0.1:20:1@accelerating at {} m/s²",
      lambda a: a["mass_kg"] * a["acceleration"]),
    F("dynamics", "calculate_momentum", "compute the momentum", "Linear momentum p = m v.",
      "mass_kg:n:0.1:2000:1@of a {} object; velocity_mps:n:0.5:60:1@moving at {}",
      lambda a: a["mass_kg"] * a["velocity_mps"]),
    F("dynamics", "calculate_friction_force", "find the friction force", "Kinetic friction from normal force and "
      "coefficient.", "normal_force_n:n:1:5000:0@with a normal force of {}; coefficient:n:0.05:1:2@and friction "
      "coefficient {}", lambda a: a["normal_force_n"] * a["coefficient"]),
    F("dynamics", "calculate_torque", "calculate the torque", "Torque from force, lever arm and angle.",
      "force_n:n:1:500:0@of a {} force; lever_arm_m:n:0.1:3:2@at {} from the pivot; ?angle_deg:n:10:90:0=90@at {}",
      lambda a: a["force_n"] * a["lever_arm_m"] * math.sin(math.radians(a.get("angle_deg", 90)))),
    F("dynamics", "calculate_impulse", "compute the impulse", "Impulse from a force applied over time.",
      "force_n:n:1:2000:0@of {}; duration_s:n:0.01:5:2@for {}", lambda a: a["force_n"] * a["duration_s"]),
    F("dynamics", "calculate_spring_force", "find the spring force", "Hooke's law force of a spring.",
      "spring_constant:n:10:2000:0@with spring constant {} N/m; extension_m:n:0.01:1:2@stretched {}",
      lambda a: a["spring_constant"] * a["extension_m"]),
    # energy and work
    F("energy_work", "calculate_kinetic_energy_of_object", "calculate the kinetic energy",
      "Kinetic energy (1/2) m v^2.", "mass_kg:n:0.1:2000:1@of a {} object; velocity_mps:n:0.5:60:1@at {}",
      lambda a: 0.5 * a["mass_kg"] * a["velocity_mps"] ** 2),
    F("energy_work", "calculate_potential_energy", "compute the gravitational potential energy",
      "Potential energy m g h near Earth's surface.", "mass_kg:n:0.1:500:1@of {}; height_m:n:0.5:300:1@at a height of {}",
      lambda a: a["mass_kg"] * G * a["height_m"]),
    F("energy_work", "calculate_work_done", "calculate the work done", "Work from force, distance and angle.",
      "force_n:n:1:1000:0@by a {} force; distance_m:n:0.5:200:1@over {}; ?angle_deg:n:0:80:0=0@at {}",
      lambda a: a["force_n"] * a["distance_m"] * math.cos(math.radians(a.get("angle_deg", 0)))),
    F("energy_work", "calculate_power_output", "work out the power", "Power from work done over time.",
      "work_j:n:10:100000:0@doing {}; time_s:n:1:600:0@in {}", lambda a: a["work_j"] / a["time_s"]),
    F("energy_work", "calculate_efficiency", "calculate the efficiency", "Efficiency in percent from output and input.",
      "useful_output_j:n:10:900:0@with {} useful output; input_energy_j:n:1000:2000:0@from {} input",
      lambda a: a["useful_output_j"] / a["input_energy_j"] * 100),
    # electricity
    F("electricity", "calculate_voltage_ohms_law", "calculate the voltage", "Voltage from current and resistance.",
      "current_a:n:0.01:20:2@with a current of {}; resistance_ohm:n:1:2000:0@through {}",
      lambda a: a["current_a"] * a["resistance_ohm"]),
    F("electricity", "calculate_current", "find the current", "Current from voltage and resistance.",
      "voltage_v:n:1:240:0@at {}; resistance_ohm:n:1:2000:0@across {}", lambda a: a["voltage_v"] / a["resistance_ohm"]),
    F("electricity", "calculate_series_resistance", "compute the total resistance in series",
      "Total resistance of resistors in series.", "resistances:ln:1:1000:0@of {} ohm resistors",
      lambda a: sum(a["resistances"])),
    F("electricity", "calculate_parallel_resistance", "compute the equivalent resistance in parallel",
      "Equivalent resistance of resistors in parallel.", "resistances:ln:1:1000:0@of {} ohm resistors",
      lambda a: 1 / sum(1 / r for r in a["resistances"])),
    F("electricity", "calculate_electric_power", "calculate the electrical power", "Power from voltage and current.",
      "voltage_v:n:1:240:0@at {}; current_a:n:0.01:20:2@drawing {}", lambda a: a["voltage_v"] * a["current_a"]),
    F("electricity", "calculate_coulomb_force", "find the electrostatic force between two charges",
      "Coulomb force between two point charges.", "charge_a:n:0.1:10:1@between {} µC; charge_b:n:0.1:10:1@and {} µC; "
      "distance_m:n:0.01:2:2@at {}", lambda a: 8.9875e9 * a["charge_a"] * a["charge_b"] * 1e-12 / a["distance_m"] ** 2),
    F("electricity", "calculate_capacitor_energy", "compute the energy stored in a capacitor",
      "Energy (1/2) C V^2 stored in a capacitor.", "capacitance_uf:n:1:5000:0@of {} µF; voltage_v:n:1:400:0@charged to {}",
      lambda a: 0.5 * a["capacitance_uf"] * 1e-6 * a["voltage_v"] ** 2),
    # optics
    F("optics", "calculate_image_distance", "find the image distance for a thin lens",
      "Image distance from focal length and object distance (thin lens).",
      "focal_length_cm:n:2:50:1@with focal length {}; object_distance_cm:n:60:300:1@and the object at {}",
      lambda a: 1 / (1 / a["focal_length_cm"] - 1 / a["object_distance_cm"])),
    F("optics", "calculate_refraction_angle", "compute the refraction angle", "Refraction angle from Snell's law.",
      "incident_angle_deg:n:5:60:0@at an incidence of {}; n1:n:1:1.5:2@from a medium with index {}; "
      "n2:n:1.3:2.4:2@into index {}", lambda a: math.degrees(math.asin(a["n1"] * math.sin(math.radians(
          a["incident_angle_deg"])) / a["n2"]))),
    F("optics", "calculate_magnification", "find the magnification", "Magnification from image and object distance.",
      "image_distance_cm:n:5:100:1@with image distance {}; object_distance_cm:n:5:100:1@and object distance {}",
      lambda a: -a["image_distance_cm"] / a["object_distance_cm"]),
    F("optics", "calculate_critical_angle", "find the critical angle for total internal reflection",
      "Critical angle between a denser and a lighter medium.", "n_dense:n:1.4:2.4:2@from index {}; "
      "n_light:n:1:1.33:2@to index {}", lambda a: math.degrees(math.asin(a["n_light"] / a["n_dense"]))),
    F("optics", "calculate_lens_power", "compute the power of a lens", "Lens power in dioptres from focal length.",
      "focal_length_m:n:0.05:2:2@with focal length {}", lambda a: 1 / a["focal_length_m"]),
    # thermodynamics
    F("thermodynamics", "calculate_heat_energy", "calculate the heat needed", "Heat Q = m c dT.",
      "mass_kg:n:0.1:50:1@to heat {}; specific_heat:n:100:4200:0@with specific heat {} J/(kg·K); "
      "temperature_change_c:n:1:80:0@by {}", lambda a: a["mass_kg"] * a["specific_heat"] * a["temperature_change_c"]),
    F("thermodynamics", "calculate_carnot_efficiency", "find the Carnot efficiency",
      "Maximum efficiency between two reservoirs (kelvin).", "hot_temperature_k:n:400:1200:0@between {}; "
      "cold_temperature_k:n:250:390:0@and {}", lambda a: 1 - a["cold_temperature_k"] / a["hot_temperature_k"]),
    F("thermodynamics", "calculate_thermal_expansion", "compute the thermal expansion",
      "Change in length from linear thermal expansion.", "length_m:n:0.5:100:1@of a {} bar; "
      "coefficient:n:0.000005:0.00003:6@with coefficient {} per K; temperature_change_c:n:5:200:0@heated by {}",
      lambda a: a["length_m"] * a["coefficient"] * a["temperature_change_c"]),
    F("thermodynamics", "calculate_heat_conduction", "calculate the heat conduction rate",
      "Rate of heat flow through a slab (Fourier's law).", "conductivity:n:0.02:400:2@with conductivity {} W/(m·K); "
      "area_m2:n:0.1:20:1@through {}; temperature_difference_c:n:1:100:0@with a difference of {}; "
      "thickness_m:n:0.01:0.5:2@and thickness {}", lambda a: a["conductivity"] * a["area_m2"] *
      a["temperature_difference_c"] / a["thickness_m"]),
    F("thermodynamics", "calculate_entropy_change", "find the entropy change", "Entropy change Q/T at constant "
      "temperature.", "heat_j:n:100:100000:0@for {}; temperature_k:n:250:600:0@at {}",
      lambda a: a["heat_j"] / a["temperature_k"]),
    # waves and sound
    F("waves_sound", "calculate_wavelength", "calculate the wavelength", "Wavelength from wave speed and frequency.",
      "speed_mps:n:300:1500:0@for a speed of {}; frequency_hz:n:20:20000:0@at {}",
      lambda a: a["speed_mps"] / a["frequency_hz"]),
    F("waves_sound", "calculate_doppler_frequency", "compute the Doppler-shifted frequency",
      "Observed frequency of a source moving towards a still observer.", "source_frequency_hz:n:100:2000:0@of a {} source; "
      "source_speed_mps:n:1:60:0@moving at {}; ?sound_speed_mps:n:330:350:0=343@with sound at {}",
      lambda a: a["source_frequency_hz"] * a.get("sound_speed_mps", 343) / (a.get("sound_speed_mps", 343) -
                                                                            a["source_speed_mps"])),
    F("waves_sound", "calculate_sound_intensity_level", "find the sound level in decibels",
      "Sound intensity level in dB from intensity in W/m^2.", "intensity:n:0.000001:0.5:6@at an intensity of {} W/m²",
      lambda a: 10 * math.log10(a["intensity"] / 1e-12)),
    F("waves_sound", "calculate_string_frequency", "compute the fundamental frequency of a string",
      "Fundamental frequency of a stretched string.", "length_m:n:0.3:1.5:2@of a {} string; tension_n:n:20:200:0@under {}; "
      "linear_density:n:0.001:0.02:3@with linear density {} kg/m", lambda a: math.sqrt(a["tension_n"] /
                                                                                    a["linear_density"]) / (2 * a["length_m"])),
    F("waves_sound", "calculate_wave_period", "find the period of a wave", "Period from frequency.",
      "frequency_hz:n:0.5:5000:1@for {}", lambda a: 1 / a["frequency_hz"]),
    # fluids
    F("fluids", "calculate_buoyant_force", "calculate the buoyant force", "Buoyant force on a submerged volume.",
      "volume_m3:n:0.001:5:3@on {}; ?fluid_density:n:800:1030:0=1000@in a fluid of density {} kg/m³",
      lambda a: a.get("fluid_density", 1000) * G * a["volume_m3"]),
    F("fluids", "calculate_hydrostatic_pressure", "find the pressure at a depth", "Hydrostatic pressure at a depth.",
      "depth_m:n:0.5:200:1@at {}; ?fluid_density:n:800:1030:0=1000@in a fluid of density {} kg/m³",
      lambda a: a.get("fluid_density", 1000) * G * a["depth_m"]),
    F("fluids", "calculate_flow_rate", "compute the flow rate", "Volumetric flow rate from pipe area and speed.",
      "area_m2:n:0.001:1:3@through a pipe of {}; velocity_mps:n:0.1:10:1@at {}",
      lambda a: a["area_m2"] * a["velocity_mps"]),
    F("fluids", "calculate_reynolds_number", "calculate the Reynolds number", "Reynolds number of a pipe flow.",
      "density:n:800:1030:0@for density {} kg/m³; velocity_mps:n:0.1:5:1@speed {}; diameter_m:n:0.01:1:2@diameter {}; "
      "viscosity:n:0.0005:0.01:4@and viscosity {} Pa·s", lambda a: a["density"] * a["velocity_mps"] * a["diameter_m"] /
      a["viscosity"]),
    F("fluids", "calculate_drag_force", "find the drag force", "Drag force on a moving body.",
      "drag_coefficient:n:0.2:1.5:2@with drag coefficient {}; area_m2:n:0.1:10:1@frontal area {}; "
      "velocity_mps:n:1:60:0@at {}; ?air_density:n:1:1.3:2=1.225@air density {}",
      lambda a: 0.5 * a.get("air_density", 1.225) * a["velocity_mps"] ** 2 * a["drag_coefficient"] * a["area_m2"]),
    # gravitation
    F("gravitation", "calculate_gravitational_force", "calculate the gravitational force between two masses",
      "Newtonian gravity between two masses.", "mass_a_kg:n:1:100000:0@between {}; mass_b_kg:n:1:100000:0@and {}; "
      "distance_m:n:0.5:100:1@at {}", lambda a: 6.674e-11 * a["mass_a_kg"] * a["mass_b_kg"] / a["distance_m"] ** 2),
    F("gravitation", "calculate_escape_velocity", "find the escape velocity of a planet",
      "Escape velocity from a body's mass and radius.", "mass_kg:n:1e22:2e27:0@of a body of {}; radius_m:n:1e6:7e7:0@"
      "with radius {}", lambda a: math.sqrt(2 * 6.674e-11 * a["mass_kg"] / a["radius_m"])),
    F("gravitation", "calculate_orbital_period", "compute the orbital period", "Period of a circular orbit.",
      "central_mass_kg:n:1e23:2e30:0@around a mass of {}; orbit_radius_m:n:1e7:1e11:0@at a radius of {}",
      lambda a: 2 * math.pi * math.sqrt(a["orbit_radius_m"] ** 3 / (6.674e-11 * a["central_mass_kg"]))),
    F("gravitation", "calculate_weight_on_planet", "work out what something weighs on another planet",
      "Weight of a mass on a planet of the solar system.", "mass_kg:n:1:200:1@of {}; planet:s:planet@on {}"),
    # nuclear
    F("nuclear_physics", "calculate_remaining_quantity", "compute how much of a radioactive sample remains",
      "Remaining amount after radioactive decay.", "initial_amount:n:1:1000:1@starting from {} g; "
      "half_life_years:n:1:10000:0@with a half-life of {}; elapsed_years:n:1:20000:0@after {}",
      lambda a: a["initial_amount"] * 0.5 ** (a["elapsed_years"] / a["half_life_years"])),
    F("nuclear_physics", "calculate_mass_energy", "convert mass to energy", "Energy E = m c^2 of a mass.",
      "mass_kg:n:0.000001:1:6@of {}", lambda a: a["mass_kg"] * 299792458 ** 2),
    F("nuclear_physics", "calculate_decay_constant", "find the decay constant", "Decay constant from a half-life.",
      "half_life_s:n:1:100000:0@for a half-life of {}", lambda a: math.log(2) / a["half_life_s"]),
    F("nuclear_physics", "estimate_radiocarbon_age", "estimate the radiocarbon age",
      "Age of a sample from its remaining carbon-14 fraction.", "remaining_fraction:n:0.05:0.95:2@with {} of the "
      "carbon-14 left", lambda a: -5730 * math.log2(a["remaining_fraction"])),
    # chemistry
    F("chemistry", "calculate_molar_mass", "calculate the molar mass of a compound", "Molar mass of a chemical formula.",
      "formula:s:formula@of {}"),
    F("chemistry", "convert_grams_to_moles", "convert grams to moles", "Moles of a compound from its mass.",
      "mass_g:n:0.1:500:1@{} of; formula:s:formula@{}"),
    F("chemistry", "calculate_ph", "calculate the pH", "pH from hydrogen ion concentration (mol/L).",
      "hydrogen_ion_concentration:n:0.0000001:0.1:7@with [H+] = {} mol/L",
      lambda a: -math.log10(a["hydrogen_ion_concentration"])),
    F("chemistry", "balance_chemical_equation", "balance a chemical equation", "Balance a chemical equation.",
      "equation:e:H2 + O2 -> H2O|CH4 + O2 -> CO2 + H2O|Fe + O2 -> Fe2O3|C3H8 + O2 -> CO2 + H2O|N2 + H2 -> NH3@{}"),
    F("chemistry", "get_element_property", "look up a property of a chemical element", "A property of an element.",
      "element:s:element@of {}; property:e:atomic_number|atomic_mass|electronegativity|melting_point@the {}"),
    F("chemistry", "calculate_percent_yield", "compute the percent yield", "Actual over theoretical yield, in percent.",
      "actual_yield_g:n:1:90:1@with an actual yield of {}; theoretical_yield_g:n:95:200:1@out of {}",
      lambda a: a["actual_yield_g"] / a["theoretical_yield_g"] * 100),
    F("chemistry", "calculate_reaction_rate_constant", "find the rate constant with the Arrhenius equation",
      "Rate constant from pre-exponential factor, activation energy and temperature.",
      "pre_exponential:n:1000:1e12:0@with A = {}; activation_energy_j:n:10000:200000:0@Ea = {}; "
      "temperature_k:n:250:1000:0@at {}", lambda a: a["pre_exponential"] * math.exp(-a["activation_energy_j"] /
                                                                                      (8.314 * a["temperature_k"]))),
    # gas laws
    F("gas_laws", "calculate_ideal_gas_pressure", "calculate the gas pressure with the ideal gas law",
      "Pressure P = nRT/V in pascals.", "moles:n:0.1:10:2@of {} mol; temperature_k:n:200:600:0@at {}; "
      "volume_m3:n:0.001:1:3@in {}", lambda a: a["moles"] * 8.314 * a["temperature_k"] / a["volume_m3"]),
    F("gas_laws", "apply_boyles_law", "find the new volume with Boyle's law",
      "Final volume of a gas at constant temperature.", "initial_pressure_pa:n:50000:300000:0@from {}; "
      "initial_volume_l:n:0.5:50:1@and {}; final_pressure_pa:n:50000:300000:0@to {}",
      lambda a: a["initial_pressure_pa"] * a["initial_volume_l"] / a["final_pressure_pa"]),
    F("gas_laws", "apply_charles_law", "compute the new volume with Charles's law",
      "Final volume of a gas at constant pressure.", "initial_volume_l:n:0.5:50:1@of {}; "
      "initial_temperature_k:n:200:500:0@from {}; final_temperature_k:n:200:500:0@to {}",
      lambda a: a["initial_volume_l"] * a["final_temperature_k"] / a["initial_temperature_k"]),
    F("gas_laws", "calculate_gas_density", "find the density of a gas", "Density of an ideal gas.",
      "molar_mass_g:n:2:150:1@with molar mass {} g/mol; pressure_pa:n:50000:300000:0@at {}; "
      "temperature_k:n:200:600:0@and {}", lambda a: a["pressure_pa"] * a["molar_mass_g"] / 1000 / (8.314 *
                                                                                                   a["temperature_k"])),
    F("gas_laws", "calculate_partial_pressure", "calculate a partial pressure", "Partial pressure from mole fraction.",
      "mole_fraction:n:0.01:0.99:2@for a mole fraction of {}; total_pressure_pa:n:50000:300000:0@at a total of {}",
      lambda a: a["mole_fraction"] * a["total_pressure_pa"]),
    # solutions
    F("solutions", "calculate_molarity", "calculate the molarity of a solution", "Molarity from moles and volume.",
      "moles:n:0.01:5:2@of {} mol; volume_l:n:0.1:10:1@in {}", lambda a: a["moles"] / a["volume_l"]),
    F("solutions", "calculate_dilution_volume", "find the volume for a dilution", "Final volume from C1 V1 = C2 V2.",
      "initial_concentration:n:0.5:12:1@from {} M; initial_volume_ml:n:1:500:0@and {}; "
      "final_concentration:n:0.01:0.4:2@to {} M", lambda a: a["initial_concentration"] * a["initial_volume_ml"] /
      a["final_concentration"]),
    F("solutions", "calculate_mass_percent", "compute the mass percent of a solution", "Solute mass over solution mass.",
      "solute_g:n:1:100:1@of {} solute; solution_g:n:150:1000:0@in {} of solution",
      lambda a: a["solute_g"] / a["solution_g"] * 100),
    F("solutions", "calculate_boiling_point_elevation", "find the boiling point elevation",
      "Boiling point rise from molality and the solvent's constant.", "molality:n:0.1:5:2@at {} mol/kg; "
      "ebullioscopic_constant:n:0.5:5:2@with Kb = {}; ?van_t_hoff_factor:i:1:3=1@and i = {}",
      lambda a: a.get("van_t_hoff_factor", 1) * a["ebullioscopic_constant"] * a["molality"]),
    # genetics
    F("genetics", "calculate_gc_content", "compute the GC content of a DNA sequence",
      "Fraction of G and C bases in a DNA sequence, in percent.", "sequence:s:dna@of {}",
      lambda a: 100 * sum(c in "GC" for c in a["sequence"]) / len(a["sequence"])),
    F("genetics", "get_reverse_complement", "get the reverse complement of a DNA sequence",
      "Reverse complement of a DNA sequence.", "sequence:s:dna@of {}",
      lambda a: a["sequence"][::-1].translate(str.maketrans("ACGT", "TGCA"))),
    F("genetics", "transcribe_dna_to_rna", "transcribe DNA into RNA", "RNA transcript of a DNA coding strand.",
      "sequence:s:dna@{}", lambda a: a["sequence"].replace("T", "U")),
    F("genetics", "predict_punnett_square", "predict offspring genotypes with a Punnett square",
      "Genotype ratios of a monohybrid cross.", "parent_a:e:AA|Aa|aa@crossing {}; parent_b:e:AA|Aa|aa@with {}"),
    F("genetics", "calculate_hardy_weinberg", "calculate Hardy-Weinberg genotype frequencies",
      "Genotype frequencies p^2, 2pq, q^2 from an allele frequency.", "allele_frequency:n:0.05:0.95:2@with p = {}"),
    F("genetics", "get_gene_info", "look up information about a gene", "Summary of a human gene.",
      "gene:s:gene@for {}; ?include_variants:b=false@including known variants; "
      "?sections:le:Function|Location|Expression|Associated Diseases@covering its {}"),
    # ecology
    F("ecology", "calculate_population_growth", "project the population growth",
      "Population after exponential growth.", "initial_population:i:10:100000@from {} individuals; "
      "growth_rate:n:0.01:0.5:2@growing at a rate of {} per year; years:i:1:50@over {} years",
      lambda a: a["initial_population"] * math.exp(a["growth_rate"] * a["years"])),
    F("ecology", "calculate_logistic_growth", "model logistic population growth",
      "Population under logistic growth with a carrying capacity.", "initial_population:i:10:1000@from {}; "
      "carrying_capacity:i:2000:100000@with capacity {}; growth_rate:n:0.05:1:2@rate {}; years:i:1:40@after {} years",
      lambda a: a["carrying_capacity"] / (1 + (a["carrying_capacity"] - a["initial_population"]) /
                                          a["initial_population"] * math.exp(-a["growth_rate"] * a["years"]))),
    F("ecology", "calculate_shannon_diversity", "compute the Shannon diversity index",
      "Shannon index from counts per species.", "species_counts:li:1:80@for counts {}",
      lambda a: -sum(c / sum(a["species_counts"]) * math.log(c / sum(a["species_counts"])) for c in a["species_counts"])),
    F("ecology", "get_species_status", "get the conservation status of a species", "IUCN status of a species.",
      "species:s:species@of the {}; ?region:s:country@in {}; "
      "?include_trend:b=false@including the population trend"),
    F("ecology", "estimate_population_mark_recapture", "estimate a population by mark and recapture",
      "Lincoln-Petersen estimate.", "marked:i:10:200@with {} marked; caught:i:10:200@{} caught later; "
      "recaptured:i:1:9@of which {} were marked", lambda a: a["marked"] * a["caught"] / a["recaptured"]),
    # epidemiology
    F("epidemiology", "calculate_basic_reproduction_number", "estimate the basic reproduction number",
      "R0 from contact rate, transmission probability and infectious period.", "contacts_per_day:n:1:30:0@with {} "
      "contacts a day; transmission_probability:n:0.01:0.5:2@transmission probability {}; infectious_days:n:2:20:0@"
      "infectious for {} days", lambda a: a["contacts_per_day"] * a["transmission_probability"] * a["infectious_days"]),
    F("epidemiology", "calculate_incidence_rate", "calculate the incidence rate",
      "New cases per 100,000 people.", "new_cases:i:1:5000@for {} new cases; population:i:10000:10000000@in a "
      "population of {}", lambda a: a["new_cases"] / a["population"] * 100000),
    F("epidemiology", "calculate_herd_immunity_threshold", "find the herd immunity threshold",
      "Share of a population that must be immune, from R0.", "r0:n:1.2:18:1@for R0 = {}", lambda a: 1 - 1 / a["r0"]),
    F("epidemiology", "calculate_vaccine_efficacy", "compute the vaccine efficacy", "Efficacy from attack rates.",
      "attack_rate_vaccinated:n:0.001:0.05:3@with attack rates {} (vaccinated); attack_rate_unvaccinated:n:0.06:0.3:2@"
      "and {} (unvaccinated)", lambda a: (1 - a["attack_rate_vaccinated"] / a["attack_rate_unvaccinated"]) * 100),
    # pharmacology
    F("pharmacology", "calculate_dose_by_weight", "calculate a dose by body weight", "Dose from mg/kg and weight.",
      "dose_mg_per_kg:n:0.5:20:1@at {} mg/kg; weight_kg:n:3:120:1@for a patient of {}",
      lambda a: a["dose_mg_per_kg"] * a["weight_kg"]),
    F("pharmacology", "calculate_drug_half_life", "compute the drug concentration after a time",
      "Concentration remaining after elimination with a half-life.", "initial_concentration:n:1:100:1@from {} mg/L; "
      "half_life_hours:n:1:24:1@half-life {}; hours_elapsed:n:1:72:0@after {} hours",
      lambda a: a["initial_concentration"] * 0.5 ** (a["hours_elapsed"] / a["half_life_hours"])),
    F("pharmacology", "calculate_infusion_rate", "calculate the infusion rate", "IV rate in mL/h.",
      "volume_ml:n:50:2000:0@for {}; duration_hours:n:0.5:24:1@over {}", lambda a: a["volume_ml"] / a["duration_hours"]),
    F("pharmacology", "check_drug_interaction", "check for a drug interaction", "Known interactions of two drugs.",
      "drug_a:s:drug@between {}; drug_b:s:drug@and {}"),
    F("pharmacology", "calculate_creatinine_clearance", "estimate creatinine clearance",
      "Cockcroft-Gault creatinine clearance.", "age_years:i:18:95@for a patient aged {}; weight_kg:n:40:140:0@weighing {}; "
      "serum_creatinine:n:0.5:3:1@with serum creatinine {} mg/dL; is_female:b@female",
      lambda a: (140 - a["age_years"]) * a["weight_kg"] / (72 * a["serum_creatinine"]) *
      (0.85 if a["is_female"] else 1)),
    # health metrics
    F("health_metrics", "calculate_body_mass_index", "calculate the BMI", "Body mass index from weight and height.",
      "weight_kg:n:35:150:1@for {}; height_m:n:1.4:2.1:2@and {}", lambda a: a["weight_kg"] / a["height_m"] ** 2),
    F("health_metrics", "calculate_bmr", "estimate the basal metabolic rate", "Mifflin-St Jeor BMR in kcal/day.",
      "weight_kg:n:40:150:0@for {}; height_cm:n:140:210:0@{} tall; age_years:i:16:90@aged {}; sex:e:male|female@({})",
      lambda a: 10 * a["weight_kg"] + 6.25 * a["height_cm"] - 5 * a["age_years"] + (5 if a["sex"] == "male" else -161)),
    F("health_metrics", "calculate_target_heart_rate", "find the target heart rate zone",
      "Heart-rate zone from age and intensity (Karvonen).", "age_years:i:16:90@for someone aged {}; "
      "resting_heart_rate_bpm:i:45:95@with resting rate {}; intensity_percent:n:50:90:0@at {} intensity"),
    F("health_metrics", "calculate_waist_to_height_ratio", "compute the waist-to-height ratio",
      "Waist circumference over height.", "waist_cm:n:55:140:0@with a {} waist; height_cm:n:140:210:0@and height {}",
      lambda a: a["waist_cm"] / a["height_cm"]),
    F("health_metrics", "calculate_body_fat_percentage", "estimate body fat percentage",
      "US Navy body-fat estimate.", "sex:e:male|female@for a {}; waist_cm:n:60:130:0@waist {}; neck_cm:n:28:50:0@neck {}; "
      "height_cm:n:150:200:0@height {}; ?hip_cm:n:80:130:0@hip {}"),
    F("health_metrics", "calculate_water_intake", "calculate the daily water intake",
      "Recommended water per day from weight and activity.", "weight_kg:n:40:150:0@for {}; "
      "?activity_minutes:i:0:180=0@with {} minutes of exercise"),
    F("health_metrics", "calculate_due_date", "estimate a pregnancy due date", "Due date from the last menstrual period.",
      "last_period_date:date@from a last period on {}"),
    # astronomy
    F("astronomy", "calculate_light_travel_time", "work out how long light takes to travel a distance",
      "Light travel time over a distance in km.", "distance_km:n:1000:5e9:0@across {}", lambda a: a["distance_km"] / 299792.458),
    F("astronomy", "convert_light_years_to_km", "convert light years to kilometres", "Light years in kilometres.",
      "light_years:n:0.1:1000:1@{}", lambda a: a["light_years"] * 9.4607e12),
    F("astronomy", "get_planet_info", "look up facts about a planet", "Mass, radius and orbit of a planet.",
      "planet:s:planet@about {}; ?fields:le:mass|radius|orbital_period|moons|gravity|day_length@({})"),
    F("astronomy", "get_star_distance", "find the distance to a star", "Distance from Earth to a named star.",
      "star:s:star@to {}; ?unit:e:light_years|parsecs=light_years@in {}"),
    F("astronomy", "calculate_apparent_magnitude", "compute the apparent magnitude",
      "Apparent magnitude from absolute magnitude and distance in parsecs.", "absolute_magnitude:n:-5:15:1@with "
      "absolute magnitude {}; distance_pc:n:1:5000:0@at {} parsecs",
      lambda a: a["absolute_magnitude"] + 5 * math.log10(a["distance_pc"]) - 5),
    F("astronomy", "get_moon_phase", "get the moon phase on a date", "Lunar phase on a date.",
      "date:date@on {}; ?include_illumination:b=false@with the illuminated fraction"),
    F("astronomy", "calculate_hubble_distance", "estimate a galaxy's distance from its recession velocity",
      "Distance in megaparsecs from Hubble's law.", "velocity_kms:n:500:30000:0@receding at {} km/s; "
      "?hubble_constant:n:67:74:1=70@with H0 = {}", lambda a: a["velocity_kms"] / a.get("hubble_constant", 70)),
    # earth science
    F("earth_science", "calculate_earthquake_energy", "estimate the energy released by an earthquake",
      "Energy in joules from the moment magnitude.", "magnitude:n:2:9.5:1@of magnitude {}",
      lambda a: 10 ** (1.5 * a["magnitude"] + 4.8)),
    F("earth_science", "get_mineral_hardness", "look up the Mohs hardness of a mineral", "Mohs hardness of a mineral.",
      "mineral:s:mineral@of {}"),
    F("earth_science", "calculate_dew_point", "calculate the dew point", "Dew point from temperature and humidity.",
      "temperature_c:n:-10:40:1@at {}; relative_humidity:n:10:100:0@and {} % humidity"),
    F("earth_science", "calculate_wind_chill", "find the wind chill temperature", "Felt temperature in wind.",
      "temperature_c:n:-30:10:0@at {}; wind_speed_kmh:n:5:80:0@with wind {}",
      lambda a: 13.12 + 0.6215 * a["temperature_c"] - 11.37 * a["wind_speed_kmh"] ** 0.16 + 0.3965 *
      a["temperature_c"] * a["wind_speed_kmh"] ** 0.16),
    F("earth_science", "calculate_heat_index", "compute the heat index", "Felt temperature from heat and humidity.",
      "temperature_c:n:27:45:0@at {}; relative_humidity:n:40:100:0@and {} % humidity"),
    F("earth_science", "get_tide_times", "get the tide times", "High and low tides at a coastal city on a date.",
      "city:s:city@for {}; date:date@on {}"),
    # environment
    F("environment", "calculate_car_emissions", "estimate the CO2 emissions of a car trip",
      "Kilograms of CO2 for a distance driven.", "distance_km:n:1:2000:0@for {}; "
      "fuel_type:e:petrol|diesel|hybrid|electric@in a {} car; ?passengers:i:1:5=1@shared by {} people"),
    F("environment", "calculate_flight_emissions", "estimate the emissions of a flight",
      "CO2 per passenger for a flight.", "distance_km:n:200:15000:0@for a {} flight; "
      "cabin_class:e:economy|business|first=economy@in {}"),
    F("environment", "calculate_household_footprint", "calculate a household carbon footprint",
      "Yearly household CO2 from energy use.", "electricity_kwh:n:500:15000:0@using {} of electricity; "
      "gas_kwh:n:0:20000:0@and {} of gas; ?renewable_share:n:0:1:2=0@with a renewable share of {}"),
    F("environment", "calculate_solar_panel_output", "estimate the output of solar panels",
      "Daily energy from a solar array.", "panel_capacity_kw:n:0.3:20:1@from a {} array; sun_hours:n:1:9:1@with {} hours "
      "of sun; ?efficiency:n:0.7:0.95:2=0.8@at {} system efficiency",
      lambda a: a["panel_capacity_kw"] * a["sun_hours"] * a.get("efficiency", 0.8)),
    F("environment", "calculate_rainwater_harvest", "estimate how much rainwater a roof collects",
      "Litres of rainwater from roof area and rainfall.", "roof_area_m2:n:20:400:0@from a {} roof; "
      "rainfall_mm:n:5:200:0@with {} mm of rain; ?runoff_coefficient:n:0.6:0.95:2=0.8@and runoff coefficient {}",
      lambda a: a["roof_area_m2"] * a["rainfall_mm"] * a.get("runoff_coefficient", 0.8)),
    F("environment", "get_air_quality_index", "get the air quality index", "Current AQI in a city.",
      "city:s:city@in {}; ?pollutant:e:pm25|pm10|o3|no2@for {}; "
      "?detailed:b=false@with details"),
)

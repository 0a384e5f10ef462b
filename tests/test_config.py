"""The shared layered config (nanoagent/config.py): defaults < YAML < flags, coercion, and errors that name the key.

Run: .venv/bin/python -m pytest tests/test_config.py -q
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from nanoagent.config import ConfigError, build_parser, load, read_yaml_mapping, resolve


@dataclass
class Cfg:
    steps: int = 10
    rate: float = 0.5
    fuse: bool = True
    name: str = "base"
    limit: int | None = None
    keys: list[str] = field(default_factory=list, metadata={"help": "comma-separated"})
    extra: dict = field(default_factory=dict)


def write(tmp_path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return str(path)


def test_defaults_then_yaml_then_flags(tmp_path):
    y = write(tmp_path, "steps: 7\nname: from-yaml\nfuse: false\n")
    assert load(Cfg, []) == Cfg()
    assert load(Cfg, ["--config", y]) == Cfg(steps=7, name="from-yaml", fuse=False)
    cfg = load(Cfg, ["--config", y, "--steps", "9", "--fuse"])
    assert (cfg.steps, cfg.name, cfg.fuse, cfg.rate) == (9, "from-yaml", True, 0.5)


def test_a_flag_left_off_does_not_override_yaml(tmp_path):
    y = write(tmp_path, "fuse: false\nlimit: 3\nkeys: [a, b]\n")
    cfg = load(Cfg, ["--config", y, "--name", "x"])  # no --fuse/--no-fuse, --limit or --keys given
    assert (cfg.fuse, cfg.limit, cfg.keys, cfg.name) == (False, 3, ["a", "b"], "x")


def test_unknown_key_suggests_the_closest(tmp_path):
    with pytest.raises(ConfigError, match=r"'stpes' \(did you mean 'steps'\?\)"):
        load(Cfg, ["--config", write(tmp_path, "stpes: 3\n")])


def test_bad_value_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match="'steps': 'many' is not a valid int"):
        load(Cfg, ["--config", write(tmp_path, "steps: many\n")])
    with pytest.raises(ConfigError, match="'rate': 'fast' is not a valid float"):
        load(Cfg, ["--rate", "fast"])
    with pytest.raises(ConfigError, match="'steps' cannot be null"):
        resolve(Cfg, flags={"steps": None})
    with pytest.raises(ConfigError, match="'fuse'"):
        resolve(Cfg, flags={"fuse": "maybe"})


@pytest.mark.parametrize("text, value", [("'true'", True), ("'False'", False), ("'yes'", True), ("'0'", False),
                                         ("true", True), ("no", False)])
def test_bool_from_yaml_strings(tmp_path, text, value):
    assert load(Cfg, ["--config", write(tmp_path, f"fuse: {text}\n")]).fuse is value


def test_list_from_comma_string(tmp_path):
    assert load(Cfg, ["--config", write(tmp_path, "keys: 'a, b,c'\n")]).keys == ["a", "b", "c"]
    assert load(Cfg, ["--keys", "a,b", "c"]).keys == ["a", "b", "c"]


def test_optional_none_and_numbers(tmp_path):
    cfg = load(Cfg, ["--config", write(tmp_path, "limit: null\nrate: 2e-4\n"), "--steps", "3"])
    assert (cfg.limit, cfg.rate, cfg.steps) == (None, 2e-4, 3)
    assert load(Cfg, ["--limit", "5"]).limit == 5


def test_yaml_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        read_yaml_mapping(tmp_path / "none.yaml")
    with pytest.raises(ConfigError, match=r"is not valid YAML at line 2, column 1: expected the node content"):
        read_yaml_mapping(write(tmp_path, "a: [1,\n"))
    (tmp_path / "bin.yaml").write_bytes(b"\x80\x81")
    with pytest.raises(ConfigError, match=r"bin.yaml is not UTF-8 text \(byte 0x80 at offset 0\)"):
        read_yaml_mapping(tmp_path / "bin.yaml")
    with pytest.raises(ConfigError, match="must be a YAML mapping"):
        read_yaml_mapping(write(tmp_path, "- a\n- b\n"))
    assert read_yaml_mapping(write(tmp_path, "")) == {}


def test_help_shows_each_default_once():
    @dataclass
    class Helped:
        threads: int | None = field(default=None, metadata={"help": "CPU threads (default: all cores)"})
        steps: int = 10

    text = build_parser(Helped).format_help()
    assert text.count("default") == 2 and "(default: all cores)" in text and "(default: 10)" in text


@dataclass
class Part:
    name: str
    size: int = 1


@dataclass
class Nested:
    part: Part = field(default_factory=lambda: Part("default"))
    parts: list[Part] = field(default_factory=list)
    shape: dict | list | None = None


def test_nested_dataclasses_lists_of_them_and_unions_from_yaml(tmp_path):
    y = write(tmp_path, "part: {name: a, size: '3'}\nparts: [{name: b}, {name: c, size: 2}]\nshape: [x, y]\n")
    cfg = resolve(Nested, y)
    assert cfg == Nested(Part("a", 3), [Part("b", 1), Part("c", 2)], ["x", "y"])
    assert resolve(Nested, write(tmp_path, "shape: {x: 1}\n")).shape == {"x": 1}
    for text, message in (("parts: [{size: 2}]\n", r"parts\[0\]: missing required key\(s\) 'name'"),
                          ("parts: [{name: b, sise: 2}]\n", r"parts\[0\]: .*'sise' \(did you mean 'size'\?\)"),
                          ("part: {name: a, size: big}\n", r"'part\.size': 'big' is not a valid int"),
                          ("part: 3\n", r"'part': expected a mapping"),
                          ("shape: 3\n", r"'shape': 3 is not a valid dict or list")):
        with pytest.raises(ConfigError, match=message):
            resolve(Nested, write(tmp_path, text))

"""Reading one config file: whatever is wrong with the file is one ConfigError naming it."""

import pytest

from trainwell.config.tree import load_config, read_config_file
from trainwell.errors import ConfigError

BAD_FILES = {
    "list": (b"[1, 2]\n", r"must hold a mapping of sections, not list"),
    "string": (b"hello\n", r"must hold a mapping of sections, not str"),
    "section_list": (b"run: [1, 2]\n", r"section 'run' must be a mapping .* not list \[1, 2\]"),
    "not_utf8": (b"run:\n  recipe: \xff\xfe\n", r"is not UTF-8 text \(byte 0xff at offset 15\)"),
    "alias_loop": (b"a: &a [*a]\n", r": a contains itself \(a YAML alias"),
    "section_loop": (b"run: &r\n  recipe: *r\n", r": run contains itself"),
    "recipe_int": (b"run: {recipe: 5}\n", r"run\.recipe must be a recipe name .* not int 5"),
    "no_parse": (b"run: {recipe: [\n", r"does not parse"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_config_file_is_one_config_error_naming_the_file(tmp_path, case):
    data, message = BAD_FILES[case]
    path = tmp_path / "config.yaml"
    path.write_bytes(data)
    with pytest.raises(ConfigError, match=message) as caught:
        read_config_file(path)
    assert str(path) in str(caught.value)
    with pytest.raises(ConfigError):  # and through load_config, which the CLI uses
        load_config([path])


def test_an_empty_section_is_an_empty_mapping_and_a_shared_alias_is_no_loop(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("run:\noptim: &o {lr: 0.01}\ntrain: {}\n")
    assert read_config_file(path)["run"] == {}
    path.write_text("x: &v [1]\ny: [*v, *v]\n")  # the same list twice: not a cycle
    assert read_config_file(path) == {"x": [1], "y": [[1], [1]]}
    path.write_text("run:\noptim: {lr: 0.01}\n")
    assert load_config([path]).optim.lr == 0.01


def test_an_unreadable_config_file_is_one_config_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.mkdir()  # a directory where the file should be
    with pytest.raises(ConfigError, match="does not exist"):
        read_config_file(path)

"""Built-in jobs to train, and the contract of a recipe of your own (`trainwell.recipes.job`):
``trainwell recipes`` lists them; ``--recipe NAME`` or ``--recipe module:function`` trains one."""

from trainwell.recipes.job import (
    BUILTIN,
    DEFAULT,
    RECIPE_FILE,
    Job,
    check_job,
    load_recipe,
    load_user_recipe,
    recipe_origin,
)

__all__ = [
    "BUILTIN",
    "DEFAULT",
    "Job",
    "RECIPE_FILE",
    "check_job",
    "load_recipe",
    "load_user_recipe",
    "recipe_origin",
]

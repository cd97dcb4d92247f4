mutant {
  name = "a-bound-off-by-one",
  file = "src/a.c",
  find = "x < 100",
  replace = "x <= 100",
  guards = { "test_twice_refuses_a_hundred" },
  designed_against = "an off-by-one bound",
  why = "100 is doubled",
}

mutant {
  name = "a-second-return",
  file = "src/a.c",
  find = "return",
  replace = "return 0 *",
  occurrence = 2,
  finding = 3,
  why = "every refusal returns 0",
  equivalent = "no caller reads it",
}

generate {
  files = { "src/*.c" },
  operators = { "relational", "logical", "constant" },
}

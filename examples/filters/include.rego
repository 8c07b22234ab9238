# METADATA
# scope: package
# compile:
#   unknowns: [input.fruits]
package filters

include if input.fruits.owner == input.user
include if { input.fruits.price < 10; not startswith(input.fruits.name, "x") }

# Queues, tables, visibility timeouts and the retry limit are defined once, in
# shared-types' data_plane.json, which the code reads too (shared_types.data_plane).
locals {
  data_plane  = jsondecode(file("${path.module}/../../../shared-types/src/shared_types/data_plane.json"))
  queue_names = keys(local.data_plane.queues)
  table_specs = local.data_plane.tables
}

#include "sim/engine/op_group_memo.h"

#include "sim/engine/op_memo.h"

namespace roofsim {

OpGroupMember::OpGroupMember() = default;
OpGroupMember::OpGroupMember(OpGroupMember&&) noexcept = default;
OpGroupMember& OpGroupMember::operator=(OpGroupMember&&) noexcept = default;
OpGroupMember::~OpGroupMember() = default;

bool groups_agree(const OpGroupRecord& first, const OpGroupRecord& next) {
  if (first.members.size() != next.members.size()) return false;
  for (std::size_t i = 0; i < first.members.size(); ++i) {
    const OpGroupMember& a = first.members[i];
    const OpGroupMember& b = next.members[i];
    if (a.delta != b.delta || a.kind_key != b.kind_key) return false;
    const TimeFs predicted = duration_at_course(*a.record, b.record->work.segments());
    if (!within_parts(b.record->duration_fs, predicted, kAgreementParts)) return false;
  }
  return true;
}

const OpGroupRecord* OpGroupStore::find(const std::string& key) const {
  const auto it = records_.find(key);
  return it == records_.end() || !it->second.agreed ? nullptr : it->second.record.get();
}

void OpGroupStore::insert(const std::string& key, std::unique_ptr<OpGroupRecord> record, OpInstance instance) {
  auto [it, fresh] = records_.try_emplace(key);
  Entry& entry = it->second;
  if (fresh) {
    entry.record = std::move(record);
    entry.instance = instance;
    return;
  }
  if (entry.agreed || entry.instance == instance) return;
  if (groups_agree(*entry.record, *record)) {
    entry.agreed = true;
  } else {
    entry.record = std::move(record);
    entry.instance = instance;
  }
}

}  // namespace roofsim

// The ladder designer's form and its TOML text: loadFrom fills the widgets from a spec's text,
// applyTo writes them back into it (see ladder_form.h), with the TOML value <-> cell text
// conversions they share.
#include <toml++/toml.h>

#include <QComboBox>
#include <QLineEdit>
#include <QStackedWidget>
#include <QTableWidget>
#include <algorithm>
#include <sstream>
#include <vector>

#include "core/toml_guard.h"
#include "ui/workbench/ladder_form.h"  // the form whose text half this is
#include "ui/workbench/toml_text_edit.h"

namespace deepladder::ui {
namespace {

QString numberText(const toml::node& n) {
  if (auto i = n.value_exact<int64_t>()) return QString::number(*i);
  if (auto d = n.value_exact<double>())  // 1e+12 reads as 1e12
    return QString::number(*d, 'g', 12).replace(QStringLiteral("e+"), QStringLiteral("e"));
  if (auto s = n.value_exact<std::string>()) return QString::fromStdString(*s);
  if (auto b = n.value_exact<bool>()) return *b ? QStringLiteral("true") : QStringLiteral("false");
  return {};
}

QString nodeText(const toml::node& n) {
  if (const auto* a = n.as_array()) {
    QStringList parts;
    for (const auto& v : *a) parts << numberText(v);
    return parts.join(QStringLiteral(", "));
  }
  return numberText(n);
}

// A table's keys (minus `skip`) as the inside of an inline table: `model = { n_layer = 4 }`.
QString inlineText(const toml::table& source, const std::vector<std::string>& skip) {
  toml::table t = source;
  for (const auto& k : skip) t.erase(k);
  if (t.empty()) return {};
  t.is_inline(true);
  for (auto&& [k, v] : t)
    if (auto* sub = v.as_table()) sub->is_inline(true);
  std::ostringstream out;
  out << t;
  QString text = QString::fromStdString(out.str()).trimmed();
  if (text.startsWith('{') && text.endsWith('}')) text = text.mid(1, text.size() - 2).trimmed();
  return text;
}

// The inside of an inline table back to a table; nullopt when it is not valid TOML.
std::optional<toml::table> parseInline(const QString& text) {
  const std::string doc_text = "x = { " + text.toStdString() + " }";
  if (tomlGuardProblem(doc_text, "cell")) return std::nullopt;  // toml++ 3.3 would overflow
  try {
    toml::table doc = toml::parse(doc_text);
    if (auto* t = doc["x"].as_table()) {
      toml::table out = *t;
      out.is_inline(false);
      return out;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

QString cell(const QTableWidget* table, int row, int column) {
  const QTableWidgetItem* item = table->item(row, column);
  return item ? item->text().trimmed() : QString();
}

}  // namespace

bool LadderForm::loadFrom(const std::string& toml_text) {
  toml::table doc;
  if (tomlGuardProblem(toml_text, "designer")) return false;
  try {
    doc = toml::parse(toml_text);
  } catch (const std::exception&) {
    return false;
  }
  loading_ = true;
  for (const auto& b : bindings_) {
    const toml::table* t = tableAt(doc, b.table, false);
    const toml::node* n = t ? t->get(b.key) : nullptr;
    const QString text = n ? nodeText(*n) : QString();
    if (auto* edit = qobject_cast<QLineEdit*>(b.widget)) {
      edit->setText(text);
      edit->setModified(false);
    } else if (auto* combo = qobject_cast<QComboBox*>(b.widget)) {
      const int i = combo->findText(text);
      combo->setCurrentIndex(text.isEmpty() || i < 0 ? 0 : i);
    }
  }
  // Arms, in the file's order of keys.
  arms_->setRowCount(0);
  if (const toml::table* arms = tableAt(doc, "arms", false))
    for (const auto& [name, node] : *arms) {
      const toml::table* arm = node.as_table();
      if (!arm) continue;
      const int r = arms_->rowCount();
      arms_->insertRow(r);
      arms_->setItem(r, kArmName, new QTableWidgetItem(QString::fromStdString(std::string(name))));
      arms_->setItem(r, kArmPreset,
                     new QTableWidgetItem(QString::fromStdString(
                         arm->get("preset") ? arm->get("preset")->value_or(std::string()) : "")));
      arms_->setItem(r, kArmOverrides, new QTableWidgetItem(inlineText(*arm, {"preset"})));
    }
  // Sizes.
  sizes_list_->setRowCount(0);
  const toml::table* sizes = tableAt(doc, "sizes", false);
  const toml::array* list = sizes && sizes->get("list") ? sizes->get("list")->as_array() : nullptr;
  if (list)
    for (const auto& entry : *list) {
      const toml::table* size = entry.as_table();
      if (!size) continue;
      const int r = sizes_list_->rowCount();
      sizes_list_->insertRow(r);
      const std::string name =
          size->get("name") ? size->get("name")->value_or(std::string()) : std::string();
      sizes_list_->setItem(r, kSizeName, new QTableWidgetItem(QString::fromStdString(name)));
      sizes_list_->setItem(r, kSizeKeys, new QTableWidgetItem(inlineText(*size, {"name"})));
    }
  sizes_mode_->setCurrentIndex(list ? 1 : 0);
  sizes_stack_->setCurrentIndex(list ? 1 : 0);
  arms_->resizeColumnToContents(kArmName);
  enableBudgetFields();
  loading_ = false;
  return true;
}

std::optional<std::string> LadderForm::applyTo(const std::string& toml_text, QString* error) const {
  toml::table doc;
  if (tomlGuardProblem(toml_text, "designer")) {
    if (error) *error = tr("the TOML text does not parse: fix it first");
    return std::nullopt;
  }
  try {
    doc = toml::parse(toml_text);
  } catch (const std::exception&) {
    if (error) *error = tr("the TOML text does not parse: fix it first");
    return std::nullopt;
  }
  auto fail = [&](const QString& message) -> std::optional<std::string> {
    if (error) *error = message;
    return std::nullopt;
  };
  const toml::table original = doc;
  const bool list_mode = sizes_mode_->currentIndex() == 1;
  for (const auto& b : bindings_) {
    if (b.table == "sizes" && list_mode) continue;  // the depth fields belong to the other mode
    QString text;
    if (auto* edit = qobject_cast<QLineEdit*>(b.widget)) text = edit->text().trimmed();
    if (auto* combo = qobject_cast<QComboBox*>(b.widget))
      text = combo->currentIndex() == 0 ? QString() : combo->currentText();
    toml::table* t = tableAt(doc, b.table, !text.isEmpty());
    if (!t) {
      if (text.isEmpty()) continue;
      return fail(tr("[%1] is not a table in the text").arg(QString::fromStdString(b.table)));
    }
    if (text.isEmpty()) {
      t->erase(b.key);
      continue;
    }
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    bool ok = true;
    switch (b.type) {
      case options::OptionType::string:
      case options::OptionType::choice:
        t->insert_or_assign(b.key, text.toStdString());
        break;
      case options::OptionType::boolean:
        t->insert_or_assign(b.key, text == QLatin1String("true"));
        break;
      case options::OptionType::integer: {
        if (b.list) {
          toml::array a;
          for (const QString& p : parts) {
            const qlonglong v = p.trimmed().toLongLong(&ok);
            if (!ok) return fail(tr("%1: \"%2\" is not a whole number").arg(b.label, p.trimmed()));
            a.push_back(static_cast<int64_t>(v));
          }
          t->insert_or_assign(b.key, a);
          break;
        }
        const qlonglong v = text.toLongLong(&ok);
        if (!ok) return fail(tr("%1: \"%2\" is not a whole number").arg(b.label, text));
        t->insert_or_assign(b.key, static_cast<int64_t>(v));
        break;
      }
      case options::OptionType::number: {
        if (b.list) {
          toml::array a;
          for (const QString& p : parts) {
            const double v = p.trimmed().toDouble(&ok);
            if (!ok) return fail(tr("%1: \"%2\" is not a number").arg(b.label, p.trimmed()));
            a.push_back(v);
          }
          if (a.size() == 1)
            t->insert_or_assign(b.key, *a.get(0)->value<double>());
          else
            t->insert_or_assign(b.key, a);
          break;
        }
        const double v = text.toDouble(&ok);
        if (!ok) return fail(tr("%1: \"%2\" is not a number").arg(b.label, text));
        if (v == static_cast<double>(static_cast<int64_t>(v)) && !text.contains('.') &&
            !text.contains('e', Qt::CaseInsensitive))
          t->insert_or_assign(b.key, static_cast<int64_t>(v));
        else
          t->insert_or_assign(b.key, v);
        break;
      }
    }
  }
  // Arms: the table replaces [arms] (each arm keeps what its overrides say).
  toml::table arms;
  for (int r = 0; r < arms_->rowCount(); ++r) {
    const QString name = cell(arms_, r, kArmName);
    if (name.isEmpty()) return fail(tr("arm %1 has no name").arg(r + 1));
    std::optional<toml::table> arm = parseInline(cell(arms_, r, kArmOverrides));
    if (!arm)
      return fail(
          tr("arm %1: the overrides are not TOML (write e.g. model = { n_layer = 4 })").arg(name));
    if (!cell(arms_, r, kArmPreset).isEmpty())
      arm->insert_or_assign("preset", cell(arms_, r, kArmPreset).toStdString());
    arms.insert_or_assign(name.toStdString(), std::move(*arm));
  }
  doc.insert_or_assign("arms", std::move(arms));
  // Sizes: either the depth ladder's keys or the list.
  toml::table* sizes = tableAt(doc, "sizes", true);
  if (list_mode) {
    for (const char* key : {"depths", "width_per_depth", "head_dim"}) sizes->erase(key);
    toml::array list;
    for (int r = 0; r < sizes_list_->rowCount(); ++r) {
      const QString name = cell(sizes_list_, r, kSizeName);
      if (name.isEmpty()) return fail(tr("size %1 has no name").arg(r + 1));
      std::optional<toml::table> size = parseInline(cell(sizes_list_, r, kSizeKeys));
      if (!size)
        return fail(tr("size %1: the model keys are not TOML (write e.g. d_model = 64, "
                       "n_layer = 2)")
                        .arg(name));
      size->insert_or_assign("name", name.toStdString());
      list.push_back(std::move(*size));
    }
    sizes->insert_or_assign("list", std::move(list));
  } else {
    sizes->erase("list");
  }
  std::ostringstream out;
  out << doc << "\n";
  const std::string rewritten = out.str();

  // The arms or the sizes changed shape: the whole text is rewritten from the form.
  const toml::table* old_arms = tableAt(original, "arms");
  const toml::table* old_sizes = tableAt(original, "sizes");
  const toml::node* old_list = old_sizes ? old_sizes->get("list") : nullptr;
  const toml::node* new_list = sizes->get("list");
  const bool arms_changed = !old_arms || !(*old_arms == *doc["arms"].as_table());
  const bool sizes_changed = (old_list == nullptr) != (new_list == nullptr) ||
                             (old_list && new_list && tomlRepr(*old_list) != tomlRepr(*new_list));
  if (arms_changed || sizes_changed) return rewritten;
  // Otherwise each changed value is edited where it stands.
  std::string text = toml_text;
  for (const auto& b : bindings_) {
    if (b.table == "sizes" && list_mode) continue;
    const toml::table* want_table = tableAt(doc, b.table);
    const toml::table* have_table = tableAt(original, b.table);
    const toml::node* want = want_table ? want_table->get(b.key) : nullptr;
    const toml::node* have = have_table ? have_table->get(b.key) : nullptr;
    if ((want == nullptr) == (have == nullptr) && (!want || tomlRepr(*want) == tomlRepr(*have)))
      continue;
    const std::optional<std::string> edited = editValueInPlace(text, b.table, b.key, want);
    if (!edited) return rewritten;
    text = *edited;
  }
  return text;
}

}  // namespace deepladder::ui

#include "views/settingsview.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "models/sandboxmodel.h"
#include "protocol/egress.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace airlock::ui {

SettingsView::SettingsView(ApiClient *client, SandboxModel *sandboxes, QWidget *parent)
    : QWidget(parent), m_client(client), m_sandboxes(sandboxes)
{
    auto *layout = new QVBoxLayout(this);
    auto *resources = new QGroupBox(tr("Resources"), this);
    auto *resLayout = new QVBoxLayout(resources);
    m_resources = new QLabel(resources);
    m_resources->setTextInteractionFlags(Qt::TextSelectableByMouse);
    resLayout->addWidget(m_resources);
    layout->addWidget(resources);

    auto *rules = new QGroupBox(tr("Egress rules of this sandbox"), this);
    auto *rulesLayout = new QVBoxLayout(rules);
    m_rules = new QTableWidget(0, 6, rules);
    m_rules->setHorizontalHeaderLabels({tr("Action"), tr("Pattern"), tr("Port"), tr("Scope"), tr("Raw TCP"), tr("Expires")});
    m_rules->horizontalHeader()->setStretchLastSection(true);
    m_rules->setColumnWidth(1, 240);
    m_rules->verticalHeader()->hide();
    m_rules->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rules->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rules->setAccessibleName(tr("Egress rules"));
    rulesLayout->addWidget(m_rules);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("&Add rule…"), rules);
    auto *remove = new QPushButton(tr("&Remove rule"), rules);
    auto *exp = new QPushButton(tr("&Export…"), rules);
    auto *imp = new QPushButton(tr("&Import…"), rules);
    for (QPushButton *b : {add, remove, exp, imp})
        buttons->addWidget(b);
    buttons->addStretch();
    rulesLayout->addLayout(buttons);
    m_message = new QLabel(rules);
    m_message->setWordWrap(true);
    rulesLayout->addWidget(m_message);
    layout->addWidget(rules, 1);

    connect(add, &QPushButton::clicked, this, &SettingsView::addRule);
    connect(remove, &QPushButton::clicked, this, &SettingsView::removeRule);
    connect(exp, &QPushButton::clicked, this, &SettingsView::exportRules);
    connect(imp, &QPushButton::clicked, this, &SettingsView::importRules);
    connect(sandboxes, &QAbstractItemModel::dataChanged, this, [this] {
        const proto::SandboxRow s = m_sandboxes->sandbox(m_sandbox).value_or(proto::SandboxRow{});
        m_resources->setText(tr("Image: %1\nCPUs: %2\nMemory: %3 MiB\nAddress: %4").arg(s.image).arg(s.cpus).arg(s.memoryMib).arg(s.ip));
    });
}

void SettingsView::setSandbox(const QString &sandbox)
{
    m_sandbox = sandbox;
    Q_EMIT m_sandboxes->dataChanged(QModelIndex(), QModelIndex()); // refresh the resources text
    reload();
}

void SettingsView::reload()
{
    m_rules->setRowCount(0);
    m_ruleList = {};
    if (!m_client || m_sandbox.isEmpty())
        return;
    m_client->call(QStringLiteral("rule.list"), {{QStringLiteral("sandbox"), m_sandbox}}, this,
                   [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        if (sandbox != m_sandbox)
            return;
        if (isMethodMissing(r)) {
            m_message->setText(tr("This airlockd has no egress rules yet (rule.list is not available)."));
            return;
        }
        if (!r.ok) {
            m_message->setText(tr("Could not list rules: %1").arg(r.errorMessage));
            return;
        }
        m_ruleList = r.result.toArray();
        for (const QJsonValue &v : m_ruleList) {
            const QJsonObject rule = v.toObject();
            const int row = m_rules->rowCount();
            m_rules->insertRow(row);
            // A rule of requests names them after its host: "github.com git push myorg/*".
            const Result<proto::RuleInfo> info = proto::RuleInfo::fromJson(rule);
            const QString request = info ? info->requestText() : QString();
            const QString pattern = rule.value(QLatin1String("pattern")).toString() + (request.isEmpty() ? QString() : QLatin1Char(' ') + request);
            const QStringList cells = {rule.value(QLatin1String("action")).toString(), pattern,
                                       rule.value(QLatin1String("port")).toVariant().toString(),
                                       rule.value(QLatin1String("scope")).toString(),
                                       rule.value(QLatin1String("raw_tcp")).toBool() ? tr("raw TCP") : QString(),
                                       rule.value(QLatin1String("expires")).toVariant().toString()};
            for (int c = 0; c < cells.size(); ++c)
                m_rules->setItem(row, c, new QTableWidgetItem(cells[c]));
            m_rules->item(row, 0)->setData(Qt::UserRole, rule.value(QLatin1String("id")).toVariant());
        }
    });
}

void SettingsView::addRule()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Add egress rule"));
    auto *form = new QFormLayout(&dialog);
    auto *action = new QComboBox(&dialog);
    action->addItem(tr("Allow"), QStringLiteral("allow"));
    action->addItem(tr("Deny"), QStringLiteral("deny"));
    auto *host = new QLineEdit(&dialog);
    host->setPlaceholderText(tr("api.example.com, *.example.com or 203.0.113.0/24"));
    auto *port = new QSpinBox(&dialog);
    port->setRange(0, 65535);
    port->setSpecialValueText(tr("any"));
    form->addRow(tr("&Action:"), action);
    form->addRow(tr("&Host:"), host);
    form->addRow(tr("&Port:"), port);
    auto *rawTcp = new QCheckBox(tr("&Raw TCP: this host and port may carry bytes that are neither TLS nor HTTP for it"), &dialog);
    rawTcp->setToolTip(tr("The broker cannot check what such bytes say; only one host or IP and one port may be opened so"));
    form->addRow(rawTcp);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(box);
    connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted || host->text().trimmed().isEmpty() || !m_client)
        return;
    QJsonObject params{{QStringLiteral("sandbox"), m_sandbox},
                       {QStringLiteral("action"), action->currentData().toString()},
                       {QStringLiteral("host"), host->text().trimmed()}};
    if (port->value() > 0)
        params.insert(QStringLiteral("port"), port->value());
    if (rawTcp->isChecked())
        params.insert(QStringLiteral("raw_tcp"), true);
    m_client->call(QStringLiteral("rule.add"), params, this, [this](const ApiClient::Reply &r) {
        m_message->setText(r.ok ? QString() : tr("Could not add the rule: %1").arg(r.errorMessage));
        reload();
    });
}

void SettingsView::removeRule()
{
    const int row = m_rules->currentRow();
    if (row < 0 || !m_client)
        return;
    m_client->call(QStringLiteral("rule.remove"), {{QStringLiteral("id"), QJsonValue::fromVariant(m_rules->item(row, 0)->data(Qt::UserRole))}},
                   this, [this](const ApiClient::Reply &r) {
                       m_message->setText(r.ok ? QString() : tr("Could not remove the rule: %1").arg(r.errorMessage));
                       reload();
                   });
}

void SettingsView::exportRules()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export rules"), m_sandbox + QStringLiteral("-rules.json"),
                                                      tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(m_ruleList).toJson()) < 0)
        m_message->setText(tr("Could not write %1: %2").arg(path, f.errorString()));
    else
        m_message->setText(tr("Exported %n rule(s) to %1.", nullptr, int(m_ruleList.size())).arg(path));
}

void SettingsView::importRules()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import rules"), {}, tr("JSON files (*.json)"));
    if (path.isEmpty() || !m_client)
        return;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        m_message->setText(tr("Could not read %1: %2").arg(path, f.errorString()));
        return;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (!doc.isArray()) {
        m_message->setText(tr("%1 is not a JSON array of rules (%2). Export rules first to see the format.")
                               .arg(path, error.error ? error.errorString() : tr("not an array")));
        return;
    }
    for (const QJsonValue &v : doc.array()) {
        const QJsonObject rule = v.toObject();
        QJsonObject params{{QStringLiteral("sandbox"), m_sandbox},
                           {QStringLiteral("action"), rule.value(QLatin1String("action"))},
                           {QStringLiteral("host"), rule.value(QLatin1String("pattern"))}};
        if (rule.value(QLatin1String("port")).toInt() > 0)
            params.insert(QStringLiteral("port"), rule.value(QLatin1String("port")));
        if (rule.value(QLatin1String("raw_tcp")).toBool())
            params.insert(QStringLiteral("raw_tcp"), true);
        m_client->call(QStringLiteral("rule.add"), params, this, [this](const ApiClient::Reply &r) {
            if (!r.ok)
                m_message->setText(tr("A rule was refused: %1").arg(r.errorMessage));
            reload();
        });
    }
}

} // namespace airlock::ui

// Basic credentials (broker/basicauth.h) and the base64 forms of a placeholder
// (broker/placeholder.h): what is decoded, what is refused, and that a value is found in
// base64 text at every alignment and in both alphabets.
#include "basicauth.h"
#include "placeholder.h"

#include <QTest>

using namespace airlock;

class TestBasicAuth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void decodesStrictBasic();
    void refusesWhatIsNotStrict_data();
    void refusesWhatIsNotStrict();
    void encodeRoundTrips();
    void basicTemplate();
    void formsAreFoundAtEveryAlignment();
    void formsKeepLengthAcrossValues();
};

void TestBasicAuth::decodesStrictBasic()
{
    const QByteArray pair = "x-access-token:ghp_0123456789abcdef";
    QCOMPARE(basicauth::decode(QByteArray("Basic " + pair.toBase64())), std::optional<QByteArray>(pair));
    QCOMPARE(basicauth::decode(QByteArray("basic  " + pair.toBase64())), std::optional<QByteArray>(pair)); // scheme in any case, several spaces
    QCOMPARE(basicauth::decode(QByteArray("Basic " + QByteArray("u:").toBase64())), std::optional<QByteArray>("u:"));
}

void TestBasicAuth::refusesWhatIsNotStrict_data()
{
    QTest::addColumn<QByteArray>("value");
    const QByteArray good = QByteArray("user:password1").toBase64(); // "dXNlcjpwYXNzd29yZDE="
    QTest::newRow("another scheme") << QByteArray("Bearer " + good);
    QTest::newRow("no space") << QByteArray("Basic" + good);
    QTest::newRow("scheme alone") << QByteArray("Basic ");
    QTest::newRow("prefix of the scheme") << QByteArray("Basi");
    QTest::newRow("schemes run together") << QByteArray("BasicAuth " + good);
    QTest::newRow("no padding") << QByteArray("Basic " + QByteArray("user:password1").toBase64(QByteArray::OmitTrailingEquals));
    QTest::newRow("url alphabet") << QByteArray("Basic " + QByteArray("u:\xfb\xff\xbf").toBase64(QByteArray::Base64UrlEncoding));
    QTest::newRow("space inside") << QByteArray("Basic dXNl cjpwYXNzd29yZDE=");
    QTest::newRow("trailing space") << QByteArray("Basic " + good + ' ');
    QTest::newRow("padding inside") << QByteArray("Basic dXNl=jpwYXNzd29yZDE=");
    QTest::newRow("three pads") << QByteArray("Basic dQ===");
    QTest::newRow("unused bits set") << QByteArray("Basic dTp=");   // "u:" is dTo=; dTp= decodes alike
    QTest::newRow("no colon") << QByteArray("Basic " + QByteArray("userpassword").toBase64());
    QTest::newRow("too long") << QByteArray("Basic " + QByteArray("u:" + QByteArray(basicauth::kMaxDecoded, 'a')).toBase64());
}

void TestBasicAuth::refusesWhatIsNotStrict()
{
    QFETCH(QByteArray, value);
    QCOMPARE(basicauth::decode(value), std::nullopt);
}

void TestBasicAuth::encodeRoundTrips()
{
    const QByteArray pair = "git:" + QByteArray(8192, '\xff');
    const QByteArray header = basicauth::encode(pair);
    QVERIFY(header.startsWith("Basic "));
    QCOMPARE(basicauth::decode(header), std::optional<QByteArray>(pair));
}

void TestBasicAuth::basicTemplate()
{
    const auto basic = [](const char *text) {
        const Result<HeaderTemplate> t = HeaderTemplate::parse(QString::fromLatin1(text));
        return t && basicauth::isBasicTemplate(*t);
    };
    QVERIFY(basic("Authorization: Basic {}"));
    QVERIFY(basic("authorization: basic {}"));
    QVERIFY(!basic("Authorization: Bearer {}"));
    QVERIFY(!basic("Authorization: Basic{}"));
    QVERIFY(!basic("Authorization: {}"));
    QVERIFY(!basic("Proxy-Authorization: Basic {}"));
    QVERIFY(!basic("Authorization: Basic {}x"));
}

void TestBasicAuth::formsAreFoundAtEveryAlignment()
{
    const QByteArray placeholder = makePlaceholder(kMinSecretLength);
    const QList<QByteArray> forms = base64Forms(placeholder);
    QCOMPARE(forms.size(), 6);
    for (const QByteArray &f : forms)
        QVERIFY2(f.size() >= 14, f.constData()); // long enough never to occur by chance
    for (int lead = 0; lead < 6; ++lead) {
        for (const QByteArray &after : {QByteArray(), QByteArray("x"), QByteArray("yz"), QByteArray("\xff\xfe\xfd")}) {
            const QByteArray data = QByteArray(lead, '\xfb') + placeholder + after;
            for (QByteArray::Base64Options alphabet : {QByteArray::Base64Options(QByteArray::Base64Encoding), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals}) {
                const QByteArray text = data.toBase64(alphabet);
                const bool found = std::any_of(forms.begin(), forms.end(), [&](const QByteArray &f) { return text.contains(f); });
                QVERIFY2(found, qPrintable(QStringLiteral("lead %1: %2").arg(lead).arg(QString::fromLatin1(text))));
            }
        }
    }
    QVERIFY(!QByteArray("something else entirely, and longer").toBase64().contains(forms.first()));
}

void TestBasicAuth::formsKeepLengthAcrossValues()
{
    // Masking swaps a value's form for its placeholder's at the same index: same length, same framing.
    const QByteArray value = "a-real-secret-\x01\xff-value";
    const QList<QByteArray> a = base64Forms(value), b = base64Forms(makePlaceholder(int(value.size())));
    QCOMPARE(a.size(), b.size());
    for (qsizetype i = 0; i < a.size(); ++i)
        QCOMPARE(a.at(i).size(), b.at(i).size());
}

QTEST_GUILESS_MAIN(TestBasicAuth)
#include "test_basicauth.moc"

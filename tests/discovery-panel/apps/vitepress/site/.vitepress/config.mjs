export default {
  title: 'Lumen',
  description: 'A small charting library',
  cleanUrls: true,
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/introduction' },
      { text: 'Reference', link: '/reference/api' },
    ],
    sidebar: {
      '/guide/': [
        {
          text: 'Guide',
          items: [
            { text: 'Introduction', link: '/guide/introduction' },
            { text: 'Installation', link: '/guide/installation' },
            { text: 'Your first chart', link: '/guide/first-chart' },
            { text: 'Themes', link: '/guide/themes' },
          ],
        },
      ],
      '/reference/': [
        {
          text: 'Reference',
          items: [
            { text: 'API', link: '/reference/api' },
            { text: 'Options', link: '/reference/options' },
          ],
        },
      ],
    },
    search: { provider: 'local' },
  },
};
